import Collector
import EventModel
import EventStore
import KVCConfig
import SQLiteStore
import Foundation
import Testing
import TestSupport

@Suite struct CollectorReportTests {
    @Test func countsEveryFigureOfTheFixture() throws {
        let store = try ReportFixture.make()
        let r = try CollectorReport(store: store)
        #expect(r.totals == StoreTotals(events: 21, rejected: 3, duplicates: 2, batches: 2, apps: 1))
        #expect(r.eventTypes == [
            TypeCount(type: "click", count: 5), TypeCount(type: "list_item_click", count: 5), TypeCount(type: "kvc_error", count: 4),
            TypeCount(type: "page_enter", count: 4), TypeCount(type: "page_leave", count: 3),
        ])
        #expect(r.events.first == EventCount(type: "list_item_click", name: "FAV", count: 5))
        #expect(r.events.contains(EventCount(type: "click", name: "<script>alert(1)</script>", count: 1)))
        #expect(r.pages == [
            PageActivity(page: "DetailViewController", enters: 1, leaves: 1, meanDwellMilliseconds: nil),
            PageActivity(page: "HomeViewController", enters: 3, leaves: 2, meanDwellMilliseconds: 1500),
        ])
        #expect(r.rules.map(\.rule.id) == ["fav-product", "buy-price", "unused"])
        let fav = try #require(r.rules.first)
        #expect(fav.covered == 4)
        #expect(fav.values == [ValueCount(value: "p-1", count: 2), ValueCount(value: "p-2", count: 1)])
        #expect(fav.valued == 3)
        let buy = r.rules[1]
        #expect(buy.covered == 3)
        #expect(buy.values == [ValueCount(value: "12", count: 1), ValueCount(value: "9.5", count: 1)])
        #expect(r.rules[2].covered == 0)
        #expect(r.rules[2].values.isEmpty)
        #expect(r.kvcErrors == [
            KVCErrorCount(appKey: "shop", rule: "fav-product", appVersion: "1.2.0", count: 3, keyPaths: ["product.id"], missingKeys: ["id", "product"]),
            KVCErrorCount(appKey: "shop", rule: "buy-price", appVersion: "1.1.0", count: 1, keyPaths: ["product.price"], missingKeys: ["price"]),
        ])
        #expect(r.rejected == [
            ReasonCount(reason: #"type unknown event type "tap""#, count: 2), ReasonCount(reason: "id is required", count: 1),
        ])
    }

    @Test func tableListsEverySection() throws {
        let text = ReportTableRenderer().render(try CollectorReport(store: try ReportFixture.make()))
        for title in ["EVENTS BY TYPE", "EVENTS BY NAME", "PAGES", "RULES", "KVC ERRORS", "REJECTED"] {
            #expect(text.contains("\n\(title)\n"))
        }
        #expect(text.contains("events 21  rejected 3  duplicates dropped 2  batches 2  apps 1"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("HomeViewController         3       2         1500.0"))
        #expect(lines.contains { $0.hasPrefix("shop  fav-product  ListItemClick") && $0.hasSuffix("productId  p-1 ×2, p-2 ×1") })
    }

    @Test func anEmptyDatabaseSaysNoneInsteadOfEmptyTables() throws {
        let path = Fixtures.temporaryDirectory("report").appendingPathComponent("empty.sqlite").path
        let text = ReportTableRenderer().render(try CollectorReport(store: try SQLiteEventStore(path: path)))
        // Seven sections of counts (impressions among them), and the trend, dwell, next-page and
        // rage-click sections.
        #expect(text.components(separatedBy: "(none)").count - 1 == 11)
    }

    @Test func jsonIsExactAndParses() throws {
        let text = ReportJSONRenderer().render(try CollectorReport(store: try ReportFixture.make()))
        let v = try JSONValue.parse(text)
        #expect(v["totals"] == ["events": 21, "rejected": 3, "duplicates": 2, "batches": 2, "apps": 1])
        let home = try #require(v["pages"]?.arrayValue?.last)
        #expect(home["page"] == "HomeViewController")
        #expect(home["enters"] == 3)
        #expect(home["leaves"] == 2)
        #expect(home["meanDwellMs"]?.doubleValue == 1500)
        #expect(v["pages"]?.arrayValue?.first?["meanDwellMs"] == .null)
        let fav = try #require(v["rules"]?.arrayValue?.first)
        #expect(fav["covered"] == 4)
        #expect(fav["values"] == [["value": "p-1", "count": 2], ["value": "p-2", "count": 1]])
        #expect(v["rejected"]?.arrayValue?.count == 2)
    }

    @Test func csvIsOneLongTableWithQuotedFields() throws {
        let text = ReportCSVRenderer().render(try CollectorReport(store: try ReportFixture.make()))
        let rows = text.components(separatedBy: "\r\n").dropLast()
        #expect(rows.first == "section,app,subject,detail,count,mean_ms")
        #expect(rows.contains("total,,events,,21,"))
        #expect(rows.contains("page,,HomeViewController,leave,2,1500.0"))
        #expect(rows.contains("rule,shop,fav-product,productId,4,"))
        #expect(rows.contains("rule_value,shop,fav-product,p-1,2,"))
        #expect(rows.contains("kvc_error,shop,fav-product,1.2.0,3,"))
        #expect(rows.contains(#"rejected,,"type unknown event type ""tap""",,2,"#))
        // Every row has the header's six columns (no field here holds a quoted comma).
        for row in rows where !row.contains("\"") { #expect(row.split(separator: ",", omittingEmptySubsequences: false).count == 6) }
    }

    @Test func htmlIsSelfContainedWithChartsAndEscapes() throws {
        let html = ReportHTMLRenderer().render(try CollectorReport(store: try ReportFixture.make()))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<svg"))
        #expect(html.components(separatedBy: "<rect").count - 1 >= 10)
        #expect(!html.contains("http://"))
        #expect(!html.contains("https://"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<link"))
        #expect(!html.contains("src="))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("type unknown event type &quot;tap&quot;"))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test func htmlEscapesEveryMarkupCharacter() {
        #expect(ReportHTMLRenderer.escape(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }

    @Test func htmlDrawsAtMostTheChartLimitAndSaysHowManyMore() throws {
        let html = ReportHTMLRenderer(chartLimit: 2).render(try CollectorReport(store: try ReportFixture.make()))
        #expect(html.contains("3 more not drawn"))
    }
}
