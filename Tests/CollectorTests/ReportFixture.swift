import Collector
import Definitions
import EventModel
import EventStore
import Foundation
import SQLiteStore
import KVCConfig
import TestSupport

/// A database with known contents, so reports can be checked figure by figure.
enum ReportFixture {
    static let cellPath = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:"
    static let buyPath = "DetailViewController-UIView-UIButton&0-0-1"

    static func event(
        _ id: String, _ type: String, _ name: String, page: String? = nil, path: String? = nil, duration: Int64? = nil,
        props: [(String, JSONValue)] = []
    ) -> JSONValue {
        var extra: [(String, JSONValue)] = []
        if let page { extra.append(("page", .string(page))) }
        if let path { extra.append(("path", .string(path))) }
        if let duration { extra.append(("duration", .int(duration))) }
        if !props.isEmpty { extra.append(("props", .object(JSONObject(props)))) }
        return TestEvents.json(id, type: type, name: name, extra: extra)
    }

    static let rules: [JSONValue] = [
        [
            "id": "fav-product", "appKey": "shop", "appVersion": ">=1.0.0", "viewEvent": "ListItemClick",
            "viewPath": .string(cellPath + "*"), "keyPath": "product.id", "keyName": "productId",
        ],
        [
            "id": "buy-price", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick", "viewPath": .string(buyPath),
            "keyPath": "product.price", "keyName": "price", "content": "Buy",
        ],
        [
            "id": "unused", "appKey": "shop", "appVersion": "*", "viewEvent": "ViewTap", "viewPath": "Nowhere-UIView&0-0",
            "keyPath": "x", "keyName": "x",
        ],
    ]

    /// Builds the fixture database and returns the open store.
    static func make() throws -> SQLiteEventStore {
        let path = Fixtures.temporaryDirectory("report").appendingPathComponent("fixture.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let home = "HomeViewController"
        _ = try store.append(
            EventBatch(
                appKey: "shop", appVersion: "1.2.0", label: "1",
                events: [
                    event("e1", "page_enter", "EVENT_HOME_ENTER", page: home),
                    event("e2", "page_enter", "EVENT_HOME_ENTER", page: home),
                    event("e3", "page_enter", "EVENT_HOME_ENTER", page: home),
                    event("e4", "page_leave", "EVENT_HOME_LEAVE", page: home, duration: 1000),
                    event("e5", "page_leave", "EVENT_HOME_LEAVE", page: home, duration: 2000),
                    event("e6", "page_enter", "DetailViewController", page: "DetailViewController"),
                    event("e7", "page_leave", "DetailViewController", page: "DetailViewController"),
                    event("c1", "list_item_click", "FAV", path: cellPath + "1", props: [("productId", "p-1")]),
                    event("c2", "list_item_click", "FAV", path: cellPath + "2", props: [("productId", "p-2")]),
                    event("c3", "list_item_click", "FAV", path: cellPath + "1", props: [("productId", "p-1")]),
                    // Section 1 is outside the rule's `0:*`.
                    event("c4", "list_item_click", "FAV", path: "HomeViewController-UIView-UITableView-ProductCell&0-0-0-1:0",
                          props: [("productId", "p-9")]),
                    // Covered by the path, but read no value.
                    event("c5", "list_item_click", "FAV", path: cellPath + "3"),
                    event("b1", "click", "BUY", path: buyPath, props: [("title", "Buy"), ("price", 9.5)]),
                    event("b2", "click", "BUY", path: buyPath, props: [("title", "Buy"), ("price", 12), ("rules", "x,buy-price")]),
                    // Covered, but the tracker says its price was read by another rule.
                    event("b4", "click", "BUY", path: buyPath, props: [("title", "Buy"), ("price", 99), ("rules", "other")]),
                    // Same path, other title: not covered by a rule whose content is "Buy".
                    event("b3", "click", "BUY", path: buyPath, props: [("title", "Cancel"), ("price", 1)]),
                    event("x1", "click", "<script>alert(1)</script>"),
                    // At a covered path, but a kvc_error is not a list item click: not covered.
                    event("k1", "kvc_error", "kvc_error", path: cellPath + "1", props: [
                        ("ruleId", "fav-product"), ("appKey", "shop"), ("appVersion", "1.2.0"), ("keyPath", "product.id"),
                        ("missingKey", "id"),
                    ]),
                    event("k2", "kvc_error", "kvc_error", props: [
                        ("ruleId", "fav-product"), ("appKey", "shop"), ("appVersion", "1.2.0"), ("keyPath", "product.id"),
                        ("missingKey", "product"),
                    ]),
                    // No appVersion in props: the HELLO's version (1.2.0) counts.
                    event("k3", "kvc_error", "kvc_error", props: [("ruleId", "fav-product"), ("keyPath", "product.id"), ("missingKey", "id")]),
                    event("k4", "kvc_error", "kvc_error", props: [
                        ("ruleId", "buy-price"), ("appVersion", "1.1.0"), ("keyPath", "product.price"), ("missingKey", "price"),
                    ]),
                    ["id": "r1", "ts": 1, "type": "tap", "name": "n"],
                    ["id": "r2", "ts": 1, "type": "tap", "name": "n"],
                    ["ts": 1, "type": "click", "name": "n"],
                ]))
        // A resend of two events: duplicates.
        _ = try store.append(
            EventBatch(appKey: "shop", appVersion: "1.2.0", label: "2", events: [event("e1", "page_enter", "EVENT_HOME_ENTER", page: home), event("c1", "list_item_click", "FAV")]))
        try store.publish(try KVCRule.rules(json: rules, source: "fixture").map(StoredRule.init), sampleRate: 1)
        return store
    }
}
