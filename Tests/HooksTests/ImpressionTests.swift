import DemoShop
import EventModel
import Hooks
import Interactions
import KVCConfig
import Reporters
import Testing
import Tracker
import ViewIdentity

/// Impressions on the UIKit-shaped model (docs/hooks.md "Impressions"): the demo shop's rows are
/// 80 points high in a table showing four, and `DemoRun`'s waits look at the window every 100 ms
/// of a manual clock, so the 500 ms are exact and nothing sleeps.
@Suite struct ImpressionTests {
    static let rows = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*"

    final class Rig {
        let memory = MemoryReporter()
        let reporting: ReportingSystem
        let tracker: Tracker
        let run: DemoRun
        let clock = ManualInteractionClock(wallMilliseconds: 1_000_000)

        init(rules: String) throws {
            let plan = try ConfigLoader.parse(text: rules, file: "rules.json")
            reporting = ReportingSystem([memory], label: "impression-tests")
            tracker = Tracker(plan: plan, app: try TrackedApp(key: "shop", version: "1.2.0"), reporting: reporting, session: "t")
            run = DemoRun(observer: tracker, clock: clock)
        }

        func perform(_ steps: DemoStep...) throws {
            for step in steps { try run.perform(step) }
        }

        /// The impressions so far: `offset row productId`, offset in ms from the start.
        func impressions() -> [String] {
            #expect(reporting.flush(timeout: .seconds(10)))
            return memory.events.filter { $0.type == .impression }.map { e in
                "\(e.ts - 1_000_000) \(e.props["indexPath"]?.stringValue ?? "-") \(e.props["productId"]?.stringValue ?? "-")"
            }
        }
    }

    static func rule(_ pattern: String = rows, event: String = "Impression", id: String = "row-seen") -> String {
        #"{"rules":[{"id":"\#(id)","appKey":"shop","appVersion":"*","viewEvent":"\#(event)","viewPath":"\#(pattern)","keyPath":"product.id","keyName":"productId"}]}"#
    }

    @Test func rowsShownHalfFor500msGiveOneImpressionEachPerPageVisit() throws {
        let rig = try Rig(rules: Self.rule())
        // Rows 0-3 fill the table: after 400 ms nothing yet, at 500 ms one impression each.
        try rig.perform(.launch, .wait(milliseconds: 400))
        #expect(rig.impressions().isEmpty)
        try rig.perform(.wait(milliseconds: 100))
        #expect(rig.impressions() == ["500 0:0 p-1", "500 0:1 p-2", "500 0:2 p-3", "500 0:3 p-4"])
        let first = rig.memory.events.first { $0.type == .impression }
        #expect(first?.name == "HomeViewController#ProductCell#impression")
        #expect(first?.path == "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:0")
        #expect(first?.props["title"]?.stringValue == "Espresso Cup")
        #expect(first?.props["rules"]?.stringValue == "row-seen")
        #expect(first?.page == "HomeViewController")

        // Rows 4-7 shown for 300 ms only, then rows 0-3 again (already seen this visit): nothing.
        try rig.perform(.scrollToRow(4), .wait(milliseconds: 300), .scrollToRow(0), .wait(milliseconds: 1000))
        #expect(rig.impressions().count == 4)
        // Rows 4-7 shown long enough.
        try rig.perform(.scrollToRow(4), .wait(milliseconds: 600))
        #expect(rig.impressions().suffix(4) == ["2300 0:4 p-5", "2300 0:5 p-6", "2300 0:6 p-7", "2300 0:7 p-8"])

        // A new visit of the home page: its rows count again.
        try rig.perform(.selectRow(5), .wait(milliseconds: 1000), .back, .wait(milliseconds: 500))
        #expect(rig.impressions().suffix(4) == ["3900 0:4 p-5", "3900 0:5 p-6", "3900 0:6 p-7", "3900 0:7 p-8"])
        #expect(rig.impressions().count == 12)
    }

    @Test func halfARowIsEnoughAndLessIsNot() throws {
        let rig = try Rig(rules: Self.rule())
        try rig.perform(.launch)
        let table = try #require(rig.run.app?.home.tableView)
        // 40 of row 0's 80 points show: half of it.
        table.setContentOffset(40)
        try rig.perform(.wait(milliseconds: 500))
        #expect(rig.impressions().first == "500 0:0 p-1")
        // In a second visit, 41 points scrolled: row 0 shows 39 of 80, less than half.
        try rig.perform(.selectRow(1), .back)
        table.setContentOffset(41)
        try rig.perform(.wait(milliseconds: 1000))
        #expect(rig.impressions().suffix(3) == ["1000 0:1 p-2", "1000 0:2 p-3", "1000 0:3 p-4"])
        #expect(rig.impressions().count == 7)
    }

    @Test func onlyWhatAnImpressionRuleSelectsAndNothingInTheBackground() throws {
        // A rule on row 2 only; the click rule on every row makes no impression.
        let rules =
            #"{"rules":[{"id":"r2","appKey":"shop","appVersion":"*","viewEvent":"Impression","name":"Row 2 seen","viewPath":"HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:2"},"#
            + #"{"id":"c","appKey":"shop","appVersion":"*","viewEvent":"ListItemClick","name":"Row clicked","viewPath":"\#(Self.rows)"}]}"#
        let rig = try Rig(rules: rules)
        try rig.perform(.launch, .background, .wait(milliseconds: 1000))
        #expect(rig.impressions().isEmpty)
        try rig.perform(.foreground, .wait(milliseconds: 500))
        #expect(rig.impressions() == ["1500 0:2 -"])
    }

    @Test func withoutImpressionRulesNothingIsWatched() throws {
        let rig = try Rig(rules: Self.rule(event: "ListItemClick"))
        #expect(rig.tracker.impressionElementNames.isEmpty)
        try rig.perform(.launch, .wait(milliseconds: 2000))
        #expect(rig.impressions().isEmpty)
        // Rules loaded while the app runs are watched from the next look.
        rig.tracker.load(try ConfigLoader.parse(text: Self.rule(), file: "rules.json"))
        #expect(rig.tracker.impressionElementNames == ["ProductCell"])
        try rig.perform(.wait(milliseconds: 500))
        #expect(rig.impressions().count == 4)
    }
}
