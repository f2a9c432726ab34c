import Analytics
import Collector
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Studio
import Testing
import TestSupport

/// The studio's back end over a real SQLite store: apps from events and pictures, rule edits as
/// whole-set publishes (an empty set included), counting through Definitions.
@Suite struct CollectorStudioBackendTests {
    static let row = "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:"

    static func store() throws -> SQLiteEventStore {
        let path = Fixtures.temporaryDirectory("studio-backend").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        func click(_ id: String, row: Int, daysAgo: Int64) -> JSONValue {
            TestEvents.event(
                id, type: .listItemClick, name: "row", ts: TestEvents.time - daysAgo * 86_400_000, path: "\(Self.row)\(row)",
                session: "s", props: [("title", .string("Product \(row)"))]
            ).json
        }
        // Beside row 0's clicks, a record that is no interaction on the same path (a rule's missed key).
        let miss = TestEvents.event("k", type: .kvcError, name: "kvc", ts: TestEvents.time - 86_400_000, path: "\(Self.row)0", session: "s").json
        _ = try store.append(
            EventBatch(appKey: "shop", appVersion: "1.10.0", events: [click("a", row: 0, daysAgo: 1), click("b", row: 0, daysAgo: 2), miss]))
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.2.0", events: [click("c", row: 1, daysAgo: 3)]))
        _ = try store.append(EventBatch(appKey: "other", events: [click("d", row: 1, daysAgo: 3)]))
        let tree = #"{"type":"HomeViewController","path":"HomeViewController&0","frame":[0,0,10,10]}"#
        _ = try store.storeSnapshot(
            Snapshot(appKey: "kiosk", appVersion: "3", page: "HomeViewController", capturedAt: TestEvents.time, receivedAt: TestEvents.time,
                width: 10, height: 10, png: [0x89, 0x50, 0x4E, 0x47], tree: tree))
        return store
    }

    static func rule(_ id: String, content: String? = nil) -> JSONValue {
        var o = JSONObject([
            ("id", .string(id)), ("name", "Rows"), ("appKey", "shop"), ("appVersion", "*"), ("viewEvent", "ListItemClick"),
            ("viewPath", .string(row + "*")),
        ])
        if let content { o["content"] = .string(content) }
        return .object(o)
    }

    @Test func appsComeFromEventsPicturesAndRulesWithVersionsInOrder() throws {
        let store = try Self.store()
        defer { store.close() }
        let backend = CollectorStudioBackend(store: store, pictures: store)
        let apps = try backend.apps()
        #expect(apps.map(\.appKey) == ["kiosk", "other", "shop"])
        #expect(apps.first { $0.appKey == "shop" }?.versions == ["1.2.0", "1.10.0"])
        #expect(apps.first { $0.appKey == "kiosk" }?.snapshots == 1)
        // Events stored later join at the next call (read from the last seq on).
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "2.0", events: [TestEvents.event("e").json]))
        #expect(try backend.apps().first { $0.appKey == "shop" }?.versions == ["1.2.0", "1.10.0", "2.0"])
    }

    @Test func rulesArePublishedAsWholeSetsDownToAnEmptyOne() throws {
        let store = try Self.store()
        defer { store.close() }
        let backend = CollectorStudioBackend(store: store, pictures: store)
        let checked = try backend.checkRule(Self.rule("rows"))
        #expect(checked["name"] == "Rows")
        #expect(checked["keyPath"] == nil)
        #expect(throws: StudioError.self) { try backend.checkRule(.object(JSONObject([("id", "x")]))) }
        let etag = try backend.replaceRules(appKey: "shop", with: [checked, try backend.checkRule(Self.rule("tea", content: "Product 1"))])
        #expect(try store.ruleSet(appKey: "shop")?.etag == etag)
        #expect(try backend.ruleSets().first?.rules.map { $0["id"] } == ["rows", "tea"])
        let empty = try backend.replaceRules(appKey: "shop", with: [])
        #expect(empty != etag)
        let set = try #require(try store.ruleSet(appKey: "shop"))
        #expect(set.rules.isEmpty)
        #expect(set.etag == empty)
    }

    @Test func countsAndHeatmapOverTheStoredEvents() throws {
        let store = try Self.store()
        defer { store.close() }
        let backend = CollectorStudioBackend(store: store, pictures: store)
        let all = StudioTimeRange(since: 0)
        let counts = try backend.counts(rule: Self.rule("rows"), range: all)
        #expect(counts.total == 3)
        #expect(counts.days.map(\.count) == [1, 1, 1])
        #expect(counts.values.first == RuleCounts.Value(value: "Product 0", count: 2))
        #expect(try backend.counts(rule: Self.rule("tea", content: "Product 1"), range: all).total == 1)
        let taps = ["ButtonClick", "ListItemClick", "ViewTap", "ValueChanged"]
        let paths = ["\(Self.row)0", "\(Self.row)1", "\(Self.row)2"]
        // The clicks only: row 0's kvc_error is no interaction.
        let heat = try backend.heatmap(appKey: "shop", appVersion: nil, viewEvents: taps, paths: paths, range: all)
        #expect(heat == ["\(Self.row)0": 2, "\(Self.row)1": 1])
        #expect(try backend.heatmap(appKey: "shop", appVersion: nil, viewEvents: ["ButtonClick"], paths: paths, range: all).isEmpty)
        #expect(try backend.heatmap(appKey: "shop", appVersion: nil, viewEvents: [], paths: paths, range: all).isEmpty)
        #expect(try backend.heatmap(appKey: "shop", appVersion: "1.2.0", viewEvents: taps, paths: ["\(Self.row)0"], range: all).isEmpty)
    }

    /// Scroll depth per page (docs/studio.md "Scroll depth"): visits are a session's page_enters of
    /// the page; each visit's depth is its largest scroll depth on the page.
    @Test func scrollDepthCountsEachVisitsDeepestScrollOfThePage() throws {
        let path = Fixtures.temporaryDirectory("studio-scroll-depth").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        var n = 0
        func event(_ type: EventType, page: String, session: String, depth: Double? = nil) -> JSONValue {
            n += 1
            return TestEvents.event(
                "e\(n)", type: type, ts: TestEvents.time + Int64(n), page: page, session: session,
                props: depth.map { [("depth", .double($0)), ("direction", .string("down"))] } ?? []
            ).json
        }
        let events = [
            // ConnectedClient a: two visits of page 3 (depth 0.6, then 0.3 and 1), a page 1 visit between.
            event(.pageEnter, page: "GtkBox(page3)", session: "a"),
            event(.scroll, page: "GtkBox(page3)", session: "a", depth: 0.4),
            event(.scroll, page: "GtkBox(page3)", session: "a", depth: 0.6),
            event(.scroll, page: "GtkBox(page3)", session: "a", depth: 0.5),
            event(.pageEnter, page: "GtkBox(page1)", session: "a"),
            event(.scroll, page: "GtkBox(page1)", session: "a", depth: 1),
            event(.pageEnter, page: "GtkBox(page3)", session: "a"),
            event(.scroll, page: "GtkBox(page3)", session: "a", depth: 0.3),
            event(.scroll, page: "GtkBox(page3)", session: "a", depth: 1),
            // ConnectedClient b: a visit with no scroll; session c: a scroll whose visit began earlier.
            event(.pageEnter, page: "GtkBox(page3)", session: "b"),
            event(.scroll, page: "GtkBox(page3)", session: "c", depth: 0.8),
        ]
        _ = try store.append(EventBatch(appKey: "factory", appVersion: "1", events: events))
        _ = try store.append(EventBatch(appKey: "other", events: [TestEvents.event("x", type: .scroll, page: "GtkBox(page3)", session: "a", props: [("depth", .double(1))]).json]))
        let backend = CollectorStudioBackend(store: store, pictures: store)
        let depth = try backend.scrollDepth(appKey: "factory", appVersion: nil, page: "GtkBox(page3)", range: StudioTimeRange(since: 0))
        #expect(depth.visits == 4)
        #expect(depth.scrolled == 3)
        #expect(depth.reached.map(\.share) == [0.25, 0.5, 0.75, 1])
        #expect(depth.reached.map(\.visits) == [3, 3, 2, 1])
        let first = try backend.scrollDepth(appKey: "factory", appVersion: "1", page: "GtkBox(page1)", range: StudioTimeRange(since: 0))
        #expect(first.visits == 1 && first.reached.map(\.visits) == [1, 1, 1, 1])
        // Only the events of the range: the first visit of session a alone.
        let early = try backend.scrollDepth(
            appKey: "factory", appVersion: nil, page: "GtkBox(page3)", range: StudioTimeRange(since: 0, until: TestEvents.time + 5))
        #expect(early.visits == 1 && early.reached.map(\.visits) == [1, 1, 0, 0])
    }
}
