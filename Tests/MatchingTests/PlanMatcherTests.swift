import EventModel
import KVCConfig
import Matching
import Testing
import ViewIdentity

@Suite struct PlanMatcherTests {
    static let cellButton = "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton"

    @Test func exactPatternMatchesOnlyItsPath() throws {
        let plan = TrackingPlan(rules: [try rule("r", path: "\(Self.cellButton)&0-0-0-0:2-0-1")])
        let m = PlanMatcher(plan: plan)
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:2-0-1")) == [0])
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:3-0-1")).isEmpty)
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:2-0-0")).isEmpty)
        // Same indexes, one name different; and one element fewer.
        #expect(m.matchingRuleIndexes(try query("HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UILabel&0-0-0-0:2-0-1")).isEmpty)
        #expect(m.matchingRuleIndexes(try query("HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView&0-0-0-0:2-0")).isEmpty)
    }

    /// Names compare by UTF-8 bytes, as `PathPattern.matches` and the viewId do: a decomposed
    /// spelling is another name, in the index as in a scan.
    @Test func namesCompareByBytesNotUnicodeEquivalence() throws {
        let precomposed = "Caf\u{E9}ViewController-UIButton&0-0"
        let decomposed = "Cafe\u{301}ViewController-UIButton&0-0"
        let plan = TrackingPlan(rules: [try rule("cafe", path: precomposed), try rule("ascii", path: "CafeViewController-UIButton&0-0")])
        let m = PlanMatcher(plan: plan)
        let q = try query(decomposed)
        #expect(m.matchingRuleIndexes(q) == LinearScan(rules: plan.rules).matchingRuleIndexes(q))
        #expect(m.matchingRuleIndexes(q).isEmpty)
        #expect(m.matchingRuleIndexes(try query(precomposed)) == [0])
        #expect(m.matchingRuleIndexes(try query("CafeViewController-UIButton&0-0")) == [1])
    }

    @Test func wildcardsMatchAnyIndexOrAnyRowOfASection() throws {
        let plan = TrackingPlan(rules: [
            try rule("anyRow0", path: "\(Self.cellButton)&0-0-0-0:*-0-1"),
            try rule("anyCell", path: "\(Self.cellButton)&0-0-0-*-0-1"),
            try rule("anyButton", path: "\(Self.cellButton)&0-0-0-0:2-0-*"),
        ])
        let m = PlanMatcher(plan: plan)
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:2-0-1")) == [0, 1, 2])
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:7-0-1")) == [0, 1])
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-1:2-0-1")) == [1])
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-0:2-0-5")) == [2])
        // `s:*` never matches a plain position; `*` does.
        #expect(m.matchingRuleIndexes(try query("\(Self.cellButton)&0-0-0-3-0-1")) == [1])
    }

    @Test func versionRangesFilterGeneralQueriesAndFixedMatchers() throws {
        let path = "HomeViewController-UIView-UIButton&0-0-0"
        let plan = TrackingPlan(rules: [
            try rule("old", versions: "<1.2", path: "\(path)"),
            try rule("mid", versions: ">=1.2.0 <2.0.0", path: "\(path)"),
            try rule("exact", versions: "2.0", path: "\(path)"),
            try rule("all", versions: "*", path: "\(path)"),
            try rule("other", app: "blog", versions: "*", path: "\(path)"),
        ])
        let general = PlanMatcher(plan: plan)
        #expect(general.matchingRuleIndexes(try query(path, app: "shop", version: "1.1.9")) == [0, 3])
        #expect(general.matchingRuleIndexes(try query(path, app: "shop", version: "1.2")) == [1, 3])
        #expect(general.matchingRuleIndexes(try query(path, app: "shop", version: "2.0.0")) == [2, 3])
        #expect(general.matchingRuleIndexes(try query(path, app: "blog", version: "2.0.0")) == [4])
        #expect(general.matchingRuleIndexes(try query(path, app: "nobody")).isEmpty)
        // No key, no version: every rule.
        #expect(general.matchingRuleIndexes(try query(path)) == [0, 1, 2, 3, 4])
        #expect(general.matchingRuleIndexes(try query(path, version: "1.5")) == [1, 3, 4])

        let fixed = PlanMatcher(plan: plan, app: AppIdentity(key: "shop", version: try #require(AppVersion("1.5"))))
        #expect(fixed.matchingRuleIndexes(try query(path)) == [1, 3])
        #expect(fixed.matchingRuleIndexes(try query(path, app: "shop", version: "1.5.0")) == [1, 3])
        // A fixed matcher answers only for its own app.
        #expect(fixed.matchingRuleIndexes(try query(path, app: "blog")).isEmpty)
        #expect(fixed.matchingRuleIndexes(try query(path, version: "1.1")).isEmpty)
    }

    @Test func contentMatchesTheTitleExactly() throws {
        let path = "HomeViewController-UIView-UIButton&0-0-*"
        let plan = TrackingPlan(rules: [
            try rule("buy", path: path, content: "Buy"),
            try rule("any", path: path),
            try rule("fav", path: path, content: "Fav"),
        ])
        let m = PlanMatcher(plan: plan)
        let p = "HomeViewController-UIView-UIButton&0-0-1"
        #expect(m.matchingRuleIndexes(try query(p, title: "Buy")) == [0, 1])
        #expect(m.matchingRuleIndexes(try query(p, title: "Fav")) == [1, 2])
        #expect(m.matchingRuleIndexes(try query(p, title: "buy")) == [1])
        #expect(m.matchingRuleIndexes(try query(p)) == [1])
    }

    @Test(arguments: ViewEvent.allCases)
    func everyViewEventMatchesOnlyItsOwnRules(_ event: ViewEvent) throws {
        let path = "HomeViewController-UIView-UIScrollView&0-0-0"
        let rules = try ViewEvent.allCases.map { try rule($0.rawValue, event: $0, path: path) }
        let m = PlanMatcher(plan: TrackingPlan(rules: rules))
        let expected = try #require(ViewEvent.allCases.firstIndex(of: event))
        #expect(m.matchingRuleIndexes(try query(path, event: event)) == [expected])
    }

    /// A match refers to its plan's rule by position: it reads as that rule, and matches at the same
    /// position of two plans whose rule there differs are neither equal nor one the other's.
    @Test func aMatchIsTheRuleOfItsOwnPlan() throws {
        let path = "HomeViewController-UIView-UIButton&0-0-0"
        let before = TrackingPlan(rules: [
            try rule("other", path: "HomeViewController-UIView-UILabel&0-0-0"), try rule("buy", path: path, keyPath: "title", keyName: "title"),
        ])
        var after = before
        after.rules[1].keyName = "label"
        let q = try query(path)
        let reader = JSONPropsReader(props: ["title": "Buy"])
        let old = PlanMatcher(plan: before).match(q, reader: reader)
        let new = PlanMatcher(plan: after).match(q, reader: reader)
        #expect(old.map(\.ruleIndex) == [1] && new.map(\.ruleIndex) == [1])
        #expect(old.first?.rule == before.rules[1] && new.first?.rule == after.rules[1])
        #expect(old.first?.rule.keyName == "title" && new.first?.rule.keyName == "label")
        #expect(old.first?.value == "Buy" && new.first?.value == "Buy")
        #expect(old != new)
        #expect(Set(old + new).count == 2)
        #expect(PlanMatcher(plan: before).match(q, reader: reader) == old)
    }

    @Test func valuesAndErrorRecordsComeInPlanOrder() throws {
        let path = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*"
        let plan = TrackingPlan(rules: [
            try rule("price", path: path, keyPath: "product.price", keyName: "price"),
            try rule("missing", path: path, keyPath: "product.sku", keyName: "sku"),
            try rule("first", path: path, keyPath: "product.tags.0", keyName: "tag"),
        ])
        let props: JSONValue = ["product": ["id": "p-42", "price": 9.5, "tags": ["new", "sale"]]]
        let m = PlanMatcher(plan: plan)
        let q = try query("HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:4", app: "shop", version: "1.0")
        let matches = m.match(q, reader: JSONPropsReader(props: props))
        #expect(matches.map(\.rule.id) == ["price", "missing", "first"])
        #expect(matches[0].value == 9.5)
        #expect(matches[2].value == "new")
        let error = try #require(matches[1].error)
        #expect(error == KVCErrorRecord(ruleID: "missing", appKey: "shop", appVersion: "1.0", keyPath: "product.sku", missingKey: "sku", resolvedPrefix: "product"))

        // Live objects by reflection.
        struct Product { var id = "p-7"; var price = 3 }
        struct Cell { var product = Product() }
        let live = m.match(q, reader: ReflectionReader(root: Cell()))
        #expect(live.map(\.value) == [3, nil, nil])
        #expect(live.compactMap(\.error?.missingKey) == ["sku", "tags"])

        // Any function can be the reader, e.g. one reading live objects by reflection.
        let reflected = m.match(q, reader: KeyPathReaderFunction { kp in .success(.string(kp.text)) })
        #expect(reflected.compactMap(\.value) == ["product.price", "product.sku", "product.tags.0"])
        // A view without props misses on the first key.
        #expect(m.match(q, reader: JSONPropsReader(props: nil)).compactMap(\.error?.missingKey) == ["product", "product", "product"])
    }

    @Test func interactionsFindEventIDsAndLabels() throws {
        var plan = TrackingPlan()
        plan.eventTable["HomeViewController"] = ClassEvents(
            className: "HomeViewController", pageEnter: "EVENT_HOME_ENTER_PAGE", pageLeave: "EVENT_HOME_LEAVE_PAGE",
            controlEvents: ["onFavBtnPressed:": "CTRL_EVENT_HOME_FAV"])
        let at = ConfigLocation(file: "labels.json", keyPath: "")
        plan.screens = [LabelledScreen(className: "ZOCMainViewController", label: "Main screen", location: at)]
        plan.events = [LabelledEvent(className: "ZOCMainViewController", selector: "shareButtonPressed:", label: "Share button", location: at)]
        let m = PlanMatcher(plan: plan)
        let reader = JSONPropsReader(props: nil)
        func interaction(_ event: ViewEvent, _ path: String, _ cls: String, _ action: String? = nil) throws -> PlanQuery {
            PlanQuery(query: try query(path, event: event), className: cls, action: action)
        }
        let enter = m.match(try interaction(.pageEnter, "HomeViewController&0", "Shop.HomeViewController"), reader: reader)
        #expect(enter == PlanMatch(eventID: "EVENT_HOME_ENTER_PAGE"))
        let leave = m.match(try interaction(.pageLeave, "HomeViewController&0", "HomeViewController"), reader: reader)
        #expect(leave.eventID == "EVENT_HOME_LEAVE_PAGE")
        let fav = m.match(try interaction(.buttonClick, "HomeViewController-UIButton&0-0", "HomeViewController", "onFavBtnPressed:"), reader: reader)
        #expect(fav.eventID == "CTRL_EVENT_HOME_FAV")
        let screen = m.match(try interaction(.pageEnter, "ZOCMainViewController&0", "ZOCMainViewController"), reader: reader)
        #expect(screen == PlanMatch(labels: ["Main screen"]))
        let share = m.match(try interaction(.buttonClick, "ZOCMainViewController-UIButton&0-0", "ZOCMainViewController", "shareButtonPressed:"), reader: reader)
        #expect(share == PlanMatch(labels: ["Share button"]))
        let nothing = m.match(try interaction(.buttonClick, "HomeViewController-UIButton&0-0", "HomeViewController", "onOther:"), reader: reader)
        #expect(nothing.isEmpty)
    }

    @Test func queryForANodeUsesItsPathAndTitle() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let node = try #require(tree.node(id: "btn1"))
        let q = PlanMatcher.query(for: node, viewEvent: .buttonClick)
        #expect(q.path.canonical == "\(Self.cellButton)&0-0-0-0:2-0-1")
        #expect(q.title == "Buy")
    }
}

import TestSupport
