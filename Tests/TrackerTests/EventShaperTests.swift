import EventModel
import KVCConfig
import Testing
import Tracker
import ViewIdentity

/// A small shop screen and plan, shared by the tracker's tests.
enum ShopPlan {
    static let events = """
        {"HomeViewController": {
          "PageEventIDs": {"Enter": "EVENT_HOME_ENTER", "Leave": "EVENT_HOME_LEAVE"},
          "ControlEventIDs": {"onFavBtnPressed:": "CTRL_HOME_FAV"}}}
        """
    static let labels = """
        {"trackedScreens": [{"class": "HomeViewController", "label": "Home"}],
         "trackedEvents": [{"class": "HomeViewController", "selector": "onFavBtnPressed:", "label": "Favourite"}]}
        """
    static let rules = """
        {"rules": [
          {"id": "cell-product", "appKey": "shop", "appVersion": ">=1.0", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.id", "keyName": "productId"},
          {"id": "cell-price", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.price", "keyName": "price"},
          {"id": "cell-sku", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.sku", "keyName": "sku"},
          {"id": "old-app", "appKey": "shop", "appVersion": "<1.0", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.id", "keyName": "old"},
          {"id": "other-app", "appKey": "news", "appVersion": "*", "viewEvent": "ListItemClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.id", "keyName": "other"},
          {"id": "fav-title", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UIButton&0-0-0", "keyPath": "state", "keyName": "favState"}
        ]}
        """

    static func plan() throws -> TrackingPlan {
        var plan = try ConfigLoader.parse(text: events, file: "events.json")
        try plan.merge(try ConfigLoader.parse(text: labels, file: "labels.json"))
        try plan.merge(try ConfigLoader.parse(text: rules, file: "rules.json"))
        return plan
    }

    /// `HomeViewController` › view › (table › cells at 0:0 and 0:1, a Fav button).
    static func tree(firstProduct: String = "p-1") throws -> ViewTree {
        try ViewTree(
            json: Array(
                """
                {"type":"Shop.HomeViewController","role":"controller","id":"home","children":[
                  {"type":"UIView","children":[
                    {"type":"UITableView","id":"table","children":[
                      {"type":"Shop.ProductCell","role":"cell","indexPath":[0,0],"id":"cell0",
                       "props":{"product":{"id":"\(firstProduct)","price":9.5}}},
                      {"type":"Shop.ProductCell","role":"cell","indexPath":[0,1],"id":"cell1",
                       "props":{"product":{"id":"p-2","price":20,"tags":["a"]}}}
                    ]},
                    {"type":"UIButton","id":"fav","title":"Fav","props":{"state":{"on":true}}}
                  ]}
                ]}
                """.utf8))
    }
}

@Suite struct EventShaperTests {
    let shaper: EventShaper

    init() throws {
        shaper = EventShaper(plan: try ShopPlan.plan(), app: try TrackedApp(key: "shop", version: "1.2.0"))
    }

    func base(_ type: EventType, _ name: String, node: (any ViewNode)?) -> TrackEvent {
        TrackEvent(
            id: "s-1", ts: 1000, type: type, name: name, page: "HomeViewController",
            path: node.map { ViewPath(of: $0).canonical }, viewId: node.map { ViewPath(of: $0).viewID.hex }, session: "s")
    }

    func shape(
        _ type: EventType, _ name: String, node: (any ViewNode)?, _ viewEvent: ViewEvent?, className: String? = nil,
        action: String? = nil
    ) -> [TrackEvent] {
        var n = 1
        return shaper.events(
            base: base(type, name, node: node), node: node, viewEvent: viewEvent, className: className, action: action,
            nextID: {
                n += 1
                return "s-\(n)"
            })
    }

    @Test func aConfiguredActionIsRenamedAndLabelled() throws {
        let tree = try ShopPlan.tree()
        let fav = try #require(tree.node(id: "fav"))
        let events = shape(
            .click, "HomeViewController#HomeViewController#onFavBtnPressed:", node: fav, .buttonClick,
            className: "Shop.HomeViewController", action: "onFavBtnPressed:")
        #expect(events.count == 1)
        let e = events[0]
        #expect(e.name == "CTRL_HOME_FAV")
        #expect(e.type == .click)
        #expect(e.props["code"] == "HomeViewController#HomeViewController#onFavBtnPressed:")
        #expect(e.props["label"] == "Favourite")
        // An object value is not a scalar: it travels as its JSON text.
        #expect(e.props["favState"] == .string(#"{"on":true}"#))
        #expect(e.props["rules"] == "fav-title")
        #expect(e.props.keys == ["code", "label", "favState", "rules"])
    }

    @Test func aDefinitionThatReadsNothingNamesTheEventOnly() throws {
        var plan = try ShopPlan.plan()
        // Named studio definitions without keyPath/keyName: one on the button, one on the cells.
        try plan.merge(
            try ConfigLoader.parse(
                text: """
                    {"rules": [
                      {"id": "fav-def", "name": "Favourite", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
                       "viewPath": "HomeViewController-UIView-UIButton&0-0-0", "content": "Fav"},
                      {"id": "cell-def", "name": "Any product", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
                       "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-*"}
                    ]}
                    """, file: "defs.json"))
        let shaper = EventShaper(plan: plan, app: try TrackedApp(key: "shop", version: "1.2.0"))
        let tree = try ShopPlan.tree()
        var n = 1
        func shape(_ type: EventType, _ node: any ViewNode, _ viewEvent: ViewEvent) -> [TrackEvent] {
            shaper.events(base: base(type, "x", node: node), node: node, viewEvent: viewEvent, className: nil, action: nil) {
                n += 1
                return "s-\(n)"
            }
        }
        let fav = shape(.click, try #require(tree.node(id: "fav")), .buttonClick)
        #expect(fav.count == 1)
        #expect(fav[0].props == JSONObject([("favState", .string(#"{"on":true}"#)), ("rules", "fav-title,fav-def")]))
        // The cell's other rules read as before (and cell-sku still misses); the definition adds its id only.
        let cell = shape(.listItemClick, try #require(tree.node(id: "cell1")), .listItemClick)
        #expect(cell.map(\.type) == [.listItemClick, .kvcError])
        #expect(cell[0].props == JSONObject([("productId", "p-2"), ("price", 20), ("rules", "cell-product,cell-price,cell-def")]))
        #expect(cell[1].props["ruleId"] == "cell-sku")
    }

    @Test func anUnconfiguredActionKeepsItsEventCode() throws {
        let tree = try ShopPlan.tree()
        let fav = try #require(tree.node(id: "fav"))
        let events = shape(
            .click, "HomeViewController#HomeViewController#onShare:", node: fav, .buttonClick,
            className: "HomeViewController", action: "onShare:")
        #expect(events.map(\.name) == ["HomeViewController#HomeViewController#onShare:"])
        #expect(events[0].props["code"] == nil)
        #expect(events[0].props["label"] == nil)
        // The KVC rule is keyed by path and event, not by action.
        #expect(events[0].props["rules"] == "fav-title")
    }

    @Test func pageEventsTakeTheirIdsAndTheScreenLabelOnEnterOnly() throws {
        let tree = try ShopPlan.tree()
        let enter = shape(.pageEnter, "HomeViewController", node: tree.root, .pageEnter, className: "Shop.HomeViewController")
        let leave = shape(.pageLeave, "HomeViewController", node: tree.root, .pageLeave, className: "Shop.HomeViewController")
        #expect(enter.map(\.name) == ["EVENT_HOME_ENTER"])
        #expect(enter[0].props == JSONObject([("code", "HomeViewController"), ("label", "Home")]))
        #expect(leave.map(\.name) == ["EVENT_HOME_LEAVE"])
        #expect(leave[0].props == JSONObject([("code", "HomeViewController")]))
    }

    @Test func listSelectionReadsValuesAndReportsEachMiss() throws {
        let tree = try ShopPlan.tree()
        let cell = try #require(tree.node(id: "cell1"))
        let events = shape(.listItemClick, "HomeViewController#UITableView#didSelectRow", node: cell, .listItemClick)
        #expect(events.count == 2)
        let e = events[0]
        #expect(e.name == "HomeViewController#UITableView#didSelectRow")
        // Rules of other apps and of versions that exclude 1.2.0 do not apply.
        #expect(e.props == JSONObject([("productId", "p-2"), ("price", 20), ("rules", "cell-product,cell-price")]))
        let err = events[1]
        #expect(err.type == .kvcError)
        #expect(err.id == "s-2")
        #expect(err.name == "cell-sku")
        #expect((err.ts, err.session, err.page, err.path, err.viewId) == (e.ts, e.session, e.page, e.path, e.viewId))
        #expect(
            err.props
                == JSONObject([
                    ("ruleId", "cell-sku"), ("appKey", "shop"), ("appVersion", "1.2.0"), ("keyPath", "product.sku"),
                    ("missingKey", "sku"), ("event", "s-1"),
                ]))
        // Every emitted event passes the wire contract.
        for event in events { #expect(try TrackEvent(json: event.json) == event) }
    }

    @Test func aReusedCellIsReadAtTheMomentOfTheInteraction() throws {
        // The same cell position shows another product after reuse: each selection reads what is shown then.
        let before = try ShopPlan.tree(firstProduct: "p-1")
        let after = try ShopPlan.tree(firstProduct: "p-9")
        let cellBefore = try #require(before.node(id: "cell0"))
        let cellAfter = try #require(after.node(id: "cell0"))
        let first = shape(.listItemClick, "x", node: cellBefore, .listItemClick)
        let second = shape(.listItemClick, "x", node: cellAfter, .listItemClick)
        #expect(first[0].props["productId"] == "p-1")
        #expect(second[0].props["productId"] == "p-9")
    }

    @Test func eventsWithoutAViewEventPassUnchanged() throws {
        let e = shape(.appStart, "app_start", node: nil, nil)
        #expect(e == [base(.appStart, "app_start", node: nil)])
    }

    @Test func anAppVersionMustBeNumbers() {
        #expect(throws: TrackerError.badAppVersion("1.x")) { try TrackedApp(key: "shop", version: "1.x") }
        #expect(throws: TrackerError.emptyAppKey) { try TrackedApp(key: "", version: "1") }
        #expect(TrackerError.badAppVersion("1.x").code == .badAppVersion)
    }
}
