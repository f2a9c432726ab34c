import Collector
import Definitions
import EventModel
import EventStore
import Foundation
import KVCConfig
import SQLiteStore
import Testing
import TestSupport

/// The report's impressions section (docs/reports.md "Impressions"): per impression rule, its
/// impressions and the clicks of the click rules with the same pattern.
@Suite struct ImpressionReportTests {
    static let rows = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*"
    static func row(_ r: Int) -> String { "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:\(r)" }

    static func rule(_ id: String, _ viewEvent: String, _ pattern: String, app: String = "shop") -> JSONValue {
        ["id": .string(id), "appKey": .string(app), "appVersion": "*", "viewEvent": .string(viewEvent), "viewPath": .string(pattern), "name": .string(id)]
    }

    @Test func impressionsAndTheClickThroughRateOfTheClickRulesWithTheSamePattern() throws {
        let path = Fixtures.temporaryDirectory("impression-report").appendingPathComponent("i.sqlite").path
        let store = try SQLiteEventStore(path: path)
        var events: [JSONValue] = []
        func add(_ type: EventType, _ path: String) {
            events.append(TestEvents.event("e\(events.count)", type: type, path: path).json)
        }
        // Rows 0-3 seen in two visits; rows 1 and 2 opened; a button inside row 1 clicked; a
        // row of another table opened.
        for _ in 0..<2 { for r in 0..<4 { add(.impression, Self.row(r)) } }
        add(.listItemClick, Self.row(1))
        add(.listItemClick, Self.row(2))
        add(.click, "HomeViewController-UIView-UITableView-ProductCell-UIButton&0-0-0-0:1-0")
        add(.listItemClick, "OtherViewController-UIView-UITableView-ProductCell&0-0-0-0:1")
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0.0", events: events))
        // Another app's clicks on the same paths are not the shop's.
        _ = try store.append(EventBatch(appKey: "blog", events: [TestEvents.event("b1", type: .listItemClick, path: Self.row(1)).json]))
        try store.publish(
            try KVCRule.rules(
                json: [
                    Self.rule("seen", "Impression", Self.rows), Self.rule("open", "ListItemClick", Self.rows),
                    // A second rule on the same clicks (another value, say): the clicks count once.
                    Self.rule("open-again", "ListItemClick", Self.rows),
                    // Inside the row, not the same pattern; and the same pattern in another app.
                    Self.rule("button", "ButtonClick", "HomeViewController-UIView-UITableView-ProductCell-UIButton&0-0-0-0:*-0"),
                    Self.rule("blog-open", "ListItemClick", Self.rows, app: "blog"),
                    // An impression rule no click rule shares a pattern with.
                    Self.rule("other-seen", "Impression", "OtherViewController-UIView-UITableView-ProductCell&0-0-0-0:*"),
                ], source: "t"
            ).map(StoredRule.init), sampleRate: 1)

        let report = try CollectorReport(store: store)
        #expect(report.impressions.count == 2)
        let seen = try #require(report.impressions.first)
        #expect(seen.rule.id == "seen")
        #expect(seen.impressions == 8)
        #expect(seen.clickRules == ["open", "open-again"])
        #expect(seen.clicks == 2)
        #expect(seen.clickThroughRate == 0.25)
        let other = try #require(report.impressions.last)
        #expect(other.rule.id == "other-seen")
        #expect(other.impressions == 0)
        #expect(other.clickRules.isEmpty)
        #expect(other.clickThroughRate == nil)

        let table = ReportTableRenderer().render(report)
        #expect(table.contains("IMPRESSIONS"))
        #expect(table.split(separator: "\n").contains { $0.contains("seen") && $0.contains("open, open-again") && $0.contains("25.0%") })
        let json = ReportJSONRenderer().json(report).objectValue?["impressions"]?.arrayValue?.first?.objectValue
        #expect(json?["impressions"] == .int(8))
        #expect(json?["clicks"] == .int(2))
        #expect(json?["clickThroughRate"] == .double(0.25))
        let csv = ReportCSVRenderer().render(report)
        #expect(csv.contains("impressions,shop,seen,,8,\r\n"))
        #expect(csv.contains("impression_clicks,shop,seen,open open-again,2,\r\n"))
        #expect(ReportHTMLRenderer().render(report).contains("<section id=\"impressions\">"))
    }
}
