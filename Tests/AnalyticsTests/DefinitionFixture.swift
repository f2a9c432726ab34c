import Analytics
import Definitions
import EventModel
import EventStore
import KVCConfig
import TestSupport
import ViewIdentity

/// Seeded shop traffic for counting definitions: two app keys, batches of app versions 1.0,
/// 2.0 and none in turn, and rules of the four circle cases; with a brute-force count over
/// every stored event to compare the stores' answers with.
enum DefinitionFixture {
    static let start = ShopTraffic().start
    static let day = UTCDay.milliseconds

    /// A store of `kind` with about `events` events per app (shop and news).
    static func store(_ kind: FixtureStore, events: Int = 3_000) throws -> any CollectorStore {
        try store(at: try kind.location(), kind, events: events)
    }

    /// The same, at `location` (`FixtureStore.location()`).
    static func store(at location: String, _ kind: FixtureStore, events: Int = 3_000) throws -> any CollectorStore {
        let store = try kind.open(location)
        for appKey in ["shop", "news"] {
            var traffic = ShopTraffic(users: 40, days: 6, seed: appKey == "shop" ? 7 : 8)
            var n = 0
            try traffic.batches(total: events, batchSize: 200) { batch in
                let version = [Optional("1.0"), "2.0", nil][n % 3]
                n += 1
                _ = try store.append(EventBatch(appKey: appKey, appVersion: version, events: batch))
            }
        }
        // Clicks on the pay button carrying a collected value: content may match it instead of the title.
        let pay = "CartViewController-UIView-UIButton&0-0-9"
        let values: [(String, JSONValue)] = [
            ("PAY", "sku-9"), ("Buy now", "sku-9"), ("PAY", "sku-1"), ("Buy now", 9), ("Buy now", "sku-2"), ("sku-9", "x"),
        ]
        var extra: [JSONValue] = []
        for (i, v) in values.enumerated() {
            for k in 0..<(i + 2) {
                extra.append(
                    TrackEvent(
                        id: "v-\(i)-\(k)", ts: start + Int64(i * 7 + k) * 3_600_000, type: .click, name: "PAY", path: pay, user: "u-\(k)",
                        props: JSONObject([("title", .string(v.0)), ("sku", v.1)])
                    ).json)
            }
        }
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "2.0", events: extra))
        return store
    }

    static func rule(
        _ id: String, _ path: String, event: ViewEvent = .buttonClick, versions: String = "*", content: String? = nil,
        keyName: String? = nil, appKey: String = "shop"
    ) throws -> KVCRule {
        KVCRule(
            id: id, name: "Definition \(id)", appKey: appKey, appVersion: try VersionRange(versions), viewEvent: event,
            viewPath: try PathPattern(path), keyPath: try keyName.map { try KVCKeyPath($0) }, keyName: keyName, content: content)
    }

    /// The four cases of circling (docs/studio.md "The page"), and rules that select nothing.
    static func rules() throws -> [KVCRule] {
        [
            // This element, whatever it shows.
            try rule("home-button", "HomeViewController-UIView-UIButton&0-0-0"),
            // This element when it shows X (here the title the traffic gives it).
            try rule("pay", "CartViewController-UIView-UIButton&0-0-9", content: "PAY"),
            // Any position, whatever it shows, on versions from 2.0 only (events without a version left out).
            try rule("any-button", "ProductListViewController-UIView-UIButton&0-0-*", versions: ">=2.0"),
            // Wherever X is shown; values read under a key name the events carry.
            try rule("detail-tap", "ProductDetailViewController-UIView-UIButton&*-*-*", content: "ProductDetailViewController#tap", keyName: "title"),
            // This element when its collected value (or title) is X; a number's value is its JSON text.
            try rule("pay-sku-9", "CartViewController-UIView-UIButton&0-0-9", content: "sku-9", keyName: "sku"),
            try rule("pay-9", "CartViewController-UIView-UIButton&0-0-9", content: "9", keyName: "sku"),
            // Of another app; of a type never at that path; of a title never shown.
            try rule("news-home", "HomeViewController-UIView-UIButton&0-0-0", appKey: "news"),
            try rule("home-tap", "HomeViewController-UIView-UIButton&0-0-0", event: .viewTap),
            try rule("nothing", "HomeViewController-UIView-UIButton&0-0-0", content: "not shown"),
        ]
    }

    /// Ranges: everything; whole UTC days; hours into days; bounds inside hours (of two days, of
    /// one day, of one hour, either side of one midnight, one bound open).
    static let ranges: [(since: Int64?, until: Int64?)] = {
        let hour: Int64 = 3_600_000, minute: Int64 = 60_000
        return [
            (nil, nil), (start + day, start + 4 * day), (start + day + 5 * hour, start + 3 * day + 7 * hour),
            (start + day + 5 * hour + 17 * minute + 3_001, start + 3 * day + 7 * hour + 42 * minute),
            (start + 2 * day + 3 * hour + 10 * minute, start + 2 * day + 19 * hour + 50 * minute),
            (start + 2 * day + 9 * hour + 5 * minute, start + 2 * day + 9 * hour + 55 * minute),
            (start + day + 20 * hour + 30 * minute, start + 2 * day + 7 * hour + 40 * minute),
            (nil, start + 2 * day + 13 * hour + 1), (start + 3 * day + 1, nil),
        ]
    }()

    /// Every stored event, read one by one through `events`.
    static func allEvents(_ store: any CollectorStore) throws -> [StoredEvent] {
        var all: [StoredEvent] = []
        try store.events(EventQuery()) { all.append($0); return true }
        return all
    }

    static func title(_ e: StoredEvent) -> String? {
        if case .string(let t) = e.event.props["title"] { return t }
        return nil
    }

    /// The brute-force reading of docs/reports.md's definition, written out again here.
    static func selects(_ rule: KVCRule, _ e: StoredEvent, since: Int64?, until: Int64?) -> Bool {
        let types: [ViewEvent: String] = [
            .buttonClick: "click", .listItemClick: "list_item_click", .viewTap: "gesture", .valueChanged: "value_changed",
            .pageEnter: "page_enter", .pageLeave: "page_leave", .scroll: "scroll",
        ]
        guard e.appKey == rule.appKey, e.event.type.rawValue == types[rule.viewEvent], let path = e.event.path else { return false }
        if let since, e.time < since { return false }
        if let until, e.time >= until { return false }
        if let version = e.appVersion.flatMap({ AppVersion($0) }) {
            guard rule.appVersion.contains(version) else { return false }
        } else if !rule.appVersion.comparators.isEmpty {
            return false
        }
        if let content = rule.content, title(e) != content {
            guard let keyName = rule.keyName, let v = e.event.props[keyName], (v.stringValue ?? v.jsonText) == content else { return false }
        }
        guard let parsed = try? ViewPath(canonical: path) else { return false }
        return rule.viewPaths.contains { $0.matches(parsed) }
    }
}
