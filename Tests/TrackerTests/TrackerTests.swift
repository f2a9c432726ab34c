import DemoShop
import EventModel
import Hooks
import Interactions
import KVCConfig
import Reporters
import Testing
import Tracker
import ViewIdentity

/// The tracker as the SDK runs it: hooks deliver interactions from the demo shop's object model.
@Suite struct TrackerTests {
    static let events = """
        {"HomeViewController": {
           "PageEventIDs": {"Enter": "HOME_IN", "Leave": "HOME_OUT"},
           "ControlEventIDs": {"onFavBtnPressed:": "HOME_FAV", "tableView:didSelectRowAtIndexPath:": "HOME_OPEN"}},
         "DetailViewController": {"ControlEventIDs": {"onAddToCartPressed:": "CART_ADD"}}}
        """
    static let labels = """
        {"trackedScreens": [{"class": "HomeViewController", "label": "Home"}],
         "trackedEvents": [{"class": "DetailViewController", "selector": "onAddToCartPressed:", "label": "Add to cart"}]}
        """
    static let rules = """
        {"rules": [
          {"id": "fav", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
           "keyPath": "superview.superview.product.id", "keyName": "productId"},
          {"id": "open", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*",
           "keyPath": "product.id", "keyName": "productId"},
          {"id": "cart-price", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "DetailViewController-UIView-UIButton&0-0-2", "keyPath": "parent.parent.product.price", "keyName": "price"},
          {"id": "cart-sku", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "DetailViewController-UIView-UIButton&0-0-2", "keyPath": "parent.parent.product.sku", "keyName": "sku"}
        ]}
        """

    /// The demo shop under a tracker with the plan above, reporting to memory.
    struct Harness {
        let memory = MemoryReporter()
        let reporting: ReportingSystem
        let tracker: Tracker
        let session: DemoRun

        /// With `plan`, that plan in place of the one above.
        init(plan given: TrackingPlan? = nil) throws {
            var plan = try ConfigLoader.parse(text: TrackerTests.events, file: "events.json")
            try plan.merge(try ConfigLoader.parse(text: TrackerTests.labels, file: "labels.json"))
            try plan.merge(try ConfigLoader.parse(text: TrackerTests.rules, file: "rules.json"))
            if let given { plan = given }
            reporting = ReportingSystem([memory], label: "tracker-tests")
            tracker = Tracker(plan: plan, app: try TrackedApp(key: "shop", version: "1.2.0"), reporting: reporting, session: "t")
            session = DemoRun(observer: tracker, clock: ManualInteractionClock(wallMilliseconds: 1_000_000))
        }

        func perform(_ steps: DemoStep...) throws {
            for step in steps { try session.perform(step) }
        }

        /// Everything reported, once the reporting queue has delivered it.
        func events() -> [TrackEvent] {
            #expect(reporting.flush(timeout: .seconds(10)))
            return memory.events
        }

        func visibleCell(row: Int) -> ProductCell? {
            session.app?.home.tableView.cellForRow(at: CellIndexPath(section: 0, row: row)) as? ProductCell
        }
    }

    /// A rule changed by a plan swap is the one the next interaction reads and names: a match
    /// refers to its plan's rule by position, and the position is the same in the new plan.
    @Test func aChangedRuleIsTheOneTheNextInteractionUses() throws {
        let h = try Harness()
        try h.perform(.launch, .tapFavourite(row: 1))
        var plan = h.tracker.localPlan
        let fav = try #require(plan.rules.firstIndex { $0.id == "fav" })
        plan.rules[fav].keyName = "favourite"
        h.tracker.load(plan)
        try h.perform(.wait(milliseconds: 2000), .tapFavourite(row: 1))
        let taps = h.events().filter { $0.name == "HOME_FAV" }
        #expect(taps.count == 2)
        #expect(taps.first?.props["productId"] == "p-2" && taps.first?.props["favourite"] == nil)
        #expect(taps.last?.props["favourite"] == "p-2" && taps.last?.props["productId"] == nil)
        #expect(taps.map { $0.props["rules"] } == ["fav", "fav"])
    }

    @Test func aScriptedSessionGivesExactlyTheConfiguredEvents() throws {
        let h = try Harness()
        try h.perform(.launch)
        let firstCells = (0..<4).compactMap { h.visibleCell(row: $0) }.map(ObjectIdentifier.init)
        try h.perform(
            .wait(milliseconds: 1000), .tapFavourite(row: 1), .selectRow(0), .wait(milliseconds: 2000), .addToCart, .back,
            .scrollToRow(6), .tapFavourite(row: 7))
        // Row 7 is shown by a cell that showed one of the first rows: the value must be read as it is now.
        let reused = try #require(h.visibleCell(row: 7))
        #expect(firstCells.contains(ObjectIdentifier(reused)))

        let events = h.events()
        let home = "HomeViewController"
        let fav = "HomeViewController#HomeViewController#onFavBtnPressed:"
        let cell = "HomeViewController-UIView-UITableView-ProductCell"
        let expected: [(String, EventType, String, String?, Int64?, JSONValue)] = [
            ("t-1", .appStart, "app_start", nil, nil, [:]),
            ("t-2", .pageEnter, "HOME_IN", "HomeViewController&0", nil,
             ["title": "Home", "count": 1, "code": .string(home), "label": "Home"]),
            ("t-3", .click, "HOME_FAV", "\(cell)-UITableViewCellContentView-UIButton&0-0-0-0:1-0-0", nil,
             ["title": "Fav", "controlEvents": "touchUpInside", "indexPath": "0:1", "code": .string(fav),
              "productId": "p-2", "rules": "fav"]),
            ("t-4", .listItemClick, "HOME_OPEN", "\(cell)&0-0-0-0:0", nil,
             ["title": "Espresso Cup", "indexPath": "0:0",
              "code": "HomeViewController#HomeViewController#tableView:didSelectRowAtIndexPath:", "productId": "p-1",
              "rules": "open"]),
            ("t-5", .pageLeave, "HOME_OUT", "HomeViewController&0", 1000, ["title": "Home", "count": 1, "code": .string(home)]),
            ("t-6", .pageEnter, "DetailViewController", "DetailViewController&0", nil, ["title": "Espresso Cup", "count": 1]),
            ("t-7", .click, "CART_ADD", "DetailViewController-UIView-UIButton&0-0-2", nil,
             ["title": "Add to cart", "controlEvents": "touchUpInside",
              "code": "DetailViewController#DetailViewController#onAddToCartPressed:", "label": "Add to cart",
              "price": 12.5, "rules": "cart-price"]),
            ("t-8", .kvcError, "cart-sku", "DetailViewController-UIView-UIButton&0-0-2", nil,
             ["ruleId": "cart-sku", "appKey": "shop", "appVersion": "1.2.0", "keyPath": "parent.parent.product.sku", "missingKey": "sku",
              "event": "t-7"]),
            ("t-9", .pageLeave, "DetailViewController", "DetailViewController&0", 2000, ["title": "Espresso Cup", "count": 1]),
            ("t-10", .pageEnter, "HOME_IN", "HomeViewController&0", nil,
             ["title": "Home", "count": 2, "code": .string(home), "label": "Home"]),
            ("t-11", .scroll, "HomeViewController#HomeViewController#scrollViewDidEndDragging:willDecelerate:",
             "HomeViewController-UIView-UITableView&0-0-0", nil, ["value": 480]),
            ("t-12", .click, "HOME_FAV", "\(cell)-UITableViewCellContentView-UIButton&0-0-0-0:7-0-0", nil,
             ["title": "Fav", "controlEvents": "touchUpInside", "indexPath": "0:7", "code": .string(fav),
              "productId": "p-8", "rules": "fav"]),
        ]
        #expect(events.count == expected.count)
        for (e, x) in zip(events, expected) {
            #expect(e.id == x.0)
            #expect(e.type == x.1, "\(e.id)")
            #expect(e.name == x.2, "\(e.id)")
            #expect(e.path == x.3, "\(e.id)")
            #expect(e.viewId == x.3.map { ViewID(canonical: $0).hex }, "\(e.id)")
            #expect(e.duration == x.4, "\(e.id)")
            #expect(JSONValue.object(e.props) == x.5, "\(e.id)")
            #expect(e.session == "t")
        }
        #expect(events.map(\.ts) == [1_000_000, 1_000_000] + Array(repeating: 1_001_000, count: 4) + Array(repeating: 1_003_000, count: 6))
        #expect(h.tracker.statistics == Tracker.Statistics(interactions: 11, events: 12, kvcErrors: 1, dropped: 0))
    }

    @Test func theTrackerReadsNothingForAppEventsAndKeepsIdsUnique() throws {
        let h = try Harness()
        try h.perform(.launch, .background, .foreground)
        let events = h.events()
        #expect(events.map(\.type) == [.appStart, .pageEnter, .appBackground, .appForeground])
        #expect(Set(events.map(\.id)).count == events.count)
        // The background carries its foreground time (none passed on the manual clock), nothing else.
        #expect(events[2].props.count == 1 && events[2].props["duration"] == .int(0) && events[3].props.isEmpty)
    }

    @Test func aFreshTrackerDrawsItsOwnSession() throws {
        let reporting = ReportingSystem([MemoryReporter()], label: "tracker-tests")
        let app = try TrackedApp(key: "shop", version: "1")
        let a = Tracker(plan: TrackingPlan(), app: app, reporting: reporting)
        let b = Tracker(plan: TrackingPlan(), app: app, reporting: reporting)
        #expect(a.session != b.session)
        #expect(a.session.hasPrefix("s-") && a.session.count == 18)
    }
}
