import EventModel
public import EventStore
import Foundation

/// Behaviour every `CollectorStore` must show (the guarantees in its doc comment), written once
/// and run against each implementation: a store's test target runs every check on a fresh store.
///
/// ```swift
/// @Test(arguments: StoreConformance.checks) func conforms(_ check: StoreCheck) throws {
///     try check.run(try SQLiteEventStore(path: temporaryDatabase()))
/// }
/// ```
public enum StoreConformance {
    public static let checks: [StoreCheck] = [
        StoreCheck("each (appKey, id) is stored once") { store in
            try expect(try store.append(batch([TestEvents.json("a"), TestEvents.json("b"), TestEvents.json("a")])), BatchOutcome(stored: 2, duplicates: 1))
            try expect(try store.append(batch([TestEvents.json("b"), TestEvents.json("c")])), BatchOutcome(stored: 1, duplicates: 1))
            try expect(try store.append(batch([TestEvents.json("a")], appKey: "news")), BatchOutcome(stored: 1))
            try expect(try store.totals(.all), StoreTotals(events: 4, rejected: 0, duplicates: 2, batches: 3, apps: 2))
        },
        StoreCheck("ids that differ after U+0000 are two events, kept exactly") { store in
            let a = "ord-1\u{0}a", b = "ord-1\u{0}b"
            try expect(try store.append(batch([TestEvents.json(a, name: "buy\u{0}now"), TestEvents.json(b)])), BatchOutcome(stored: 2))
            try expect(try store.append(batch([TestEvents.json(a)])), BatchOutcome(duplicates: 1))
            let events = try stored(store)
            try expect(events.map(\.event.id), [a, b])
            try expect(events.first?.event.name, "buy\u{0}now")
        },
        StoreCheck("invalid events are kept with their reason, the rest stored") { store in
            let big = try JSONValue.parse(#"{"id":"x","ts":1,"type":"click","name":"n","props":{"price":1e999}}"#)
            let outcome = try store.append(batch([["id": "t", "ts": 1, "type": "tap", "name": "n"], TestEvents.json("ok"), big]))
            try expect(outcome.stored, 1)
            try expect(
                outcome.rejections,
                [#"type unknown event type "tap""#, "props.price is a number too large for a 64-bit float; send it as a string"])
            try expect(Set(try store.rejectedCounts(.all).map(\.reason)), Set(outcome.rejections))
            try expect(try store.totals(.all).rejected, 2)
        },
        StoreCheck("user, device, session and props come back as sent") { store in
            let sent = TestEvents.json("a", extra: [("session", "s-1"), ("user", "alice"), ("device", "d-1"), ("props", ["k": 1.5])])
            _ = try store.append(batch([sent], appVersion: "1.2.0"))
            let e = try stored(store).first
            try expect(e?.event.json, sent)
            try expect(e?.appVersion, "1.2.0")
        },
        StoreCheck("the corrected time is ts + (received - sentAt) and filters use it") { store in
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            _ = try store.append(EventBatch(appKey: "shop", sentAt: 1_000, events: [TestEvents.json("late", extra: [("ts", 500)])]))
            let after = Int64(Date().timeIntervalSince1970 * 1000) + 1
            _ = try store.append(batch([TestEvents.json("plain", extra: [("ts", 2_000)])]))
            let events = try stored(store)
            try expect(events.map(\.event.ts), [500, 2_000])
            try expect((before - 500)...(after - 500) ~= events[0].time, true)
            try expect(events[1].time, 2_000)
            try expect(try store.totals(EventFilter(since: before - 500)).events, 1)
            try expect(try store.eventCounts(EventFilter(until: 2_001)).map(\.count), [1])
            try expect(try stored(store, EventQuery(filter: EventFilter(until: 2_001))).map(\.event.id), ["plain"])
        },
        StoreCheck("events stream in storage order by app, version, type and cursor") { store in
            _ = try store.append(batch([TestEvents.json("a"), TestEvents.json("b", type: "page_enter")], appVersion: "1.0"))
            _ = try store.append(batch([TestEvents.json("c")], appKey: "news", appVersion: "2.0"))
            let all = try stored(store)
            try expect(all.map(\.event.id), ["a", "b", "c"])
            try expect(all.map(\.seq), all.map(\.seq).sorted())
            try expect(try stored(store, EventQuery(filter: EventFilter(appKey: "shop"), types: ["click"])).map(\.event.id), ["a"])
            try expect(try stored(store, EventQuery(filter: EventFilter(appVersion: "2.0"))).map(\.appKey), ["news"])
            try expect(try stored(store, EventQuery(afterSeq: all[0].seq, limit: 1)).map(\.event.id), ["b"])
            var seen = 0
            try store.events(EventQuery()) { _ in seen += 1; return false }
            try expect(seen, 1)
        },
        StoreCheck("publish replaces each app's set, with its rate and stored etag") { store in
            try expect(try store.ruleSet(appKey: "shop"), nil)
            try expect(try store.publish([rule("r1"), rule("r2"), rule("n1", appKey: "news")], sampleRate: 0.25), 3)
            let shop = try store.ruleSet(appKey: "shop")
            try expect(shop?.sampleRate, 0.25)
            try expect(shop?.etag, StoredRuleSet.etag(ruleJSON: [rule("r1").json, rule("r2").json], sampleRate: 0.25))
            try expect(try store.publish([rule("r3"), rule("r1")], sampleRate: 1), 2)
            try expect(try store.rules(appKey: "shop").map(\.id), ["r3", "r1"])
            try expect(try store.ruleSet(appKey: "news")?.sampleRate, 0.25)
            try expect(try store.rules().map { "\($0.appKey)/\($0.id)" }, ["news/n1", "shop/r3", "shop/r1"])
            // A repeated id in one publish: the later rule wins.
            let later = StoredRule(appKey: "shop", id: "r9", json: #"{"id":"r9","v":2}"#)
            try expect(try store.publish([rule("r9"), later], sampleRate: 1), 1)
            try expect(try store.rules(appKey: "shop").map(\.json), [later.json])
            try expect((try store.rules(appKey: "shop").first?.publishedAt ?? 0) > 0, true)
            // An app named in appKeys without rules gets an empty set (the studio's last delete).
            try expect(try store.publish([], sampleRate: 1, appKeys: ["shop"]), 0)
            try expect(try store.rules(appKey: "shop").count, 0)
            try expect(try store.ruleSet(appKey: "shop")?.etag, StoredRuleSet.etag(ruleJSON: [], sampleRate: 1))
            try expect(try store.rules(appKey: "news").map(\.id), ["n1"])
        },
        StoreCheck("snapshots keep the newest per page and a bounded history, newest first") { store in
            let snapshots = try snapshotStore(store)
            var home: [Int64] = []
            for i in 0..<(Snapshot.keptPerPage + 2) {
                home.append(try snapshots.storeSnapshot(snapshot("Home", capturedAt: 1_000 + Int64(i))))
            }
            let cart = try snapshots.storeSnapshot(snapshot("Cart", capturedAt: 5_000))
            let v2 = try snapshots.storeSnapshot(snapshot("Home", appVersion: "2.0", capturedAt: 900))
            let news = try snapshots.storeSnapshot(snapshot("Home", appKey: "news", capturedAt: 1))
            try expect(Set(home + [cart, v2, news]).count, Snapshot.keptPerPage + 5)  // ids are unique
            let kept = Array(home.suffix(Snapshot.keptPerPage).reversed())
            // Newest first by arrival, whatever the agents' clocks say.
            try expect(try snapshots.snapshots(appKey: nil, appVersion: nil).map(\.id), [news, v2, cart] + kept)
            try expect(try snapshots.snapshots(appKey: "shop", appVersion: "1.0").map(\.id), [cart] + kept)
            try expect(try snapshots.snapshots(appKey: "shop", appVersion: nil).map(\.id), [v2, cart] + kept)
            try expect(try snapshots.snapshots(appKey: nil, appVersion: "2.0").map(\.id), [v2])
            try expect(try snapshots.snapshots(appKey: "blog", appVersion: nil).map(\.id), [])
            try expect(try snapshots.snapshots(appKey: "shop", appVersion: "1.0").first?.page, "Cart")
            try expect(try snapshots.snapshots(appKey: "news", appVersion: nil), [snapshot("Home", appKey: "news", capturedAt: 1, id: news).summary])
            // The oldest two of Home are gone; the others come back whole, bytes and text exactly.
            try expect(try snapshots.snapshot(id: home[0]), nil)
            try expect(try snapshots.snapshot(id: home[1]), nil)
            try expect(try snapshots.snapshot(id: home[2]), snapshot("Home", capturedAt: 1_002, id: home[2]))
            try expect(try snapshots.snapshot(id: cart)?.png, snapshot("Cart", capturedAt: 5_000).png)
            try expect(try snapshots.snapshot(id: 1_000_000), nil)
            // An id is never given twice, not even after the newest was deleted.
            _ = try store.prune(before: Int64.max, appKey: nil, chunk: 100)
            try expect((try snapshots.storeSnapshot(snapshot("Home", capturedAt: 1))) > news, true)
        },
        StoreCheck("prune deletes the snapshots captured before its cut, only the app's when given") { store in
            let snapshots = try snapshotStore(store)
            let early = try snapshots.storeSnapshot(snapshot("Home", capturedAt: 1_000))
            let late = try snapshots.storeSnapshot(snapshot("Cart", capturedAt: 2_000))
            let other = try snapshots.storeSnapshot(snapshot("Home", appKey: "news", capturedAt: 1_000))
            try expect(try store.prune(before: 1_500, appKey: "shop", chunk: 1).snapshots, 1)
            try expect(try snapshots.snapshots(appKey: nil, appVersion: nil).map(\.id), [other, late])
            try expect(try store.prune(before: 1_500, appKey: nil, chunk: 1).snapshots, 1)
            try expect(try snapshots.snapshots(appKey: nil, appVersion: nil).map(\.id), [late])
            try expect(try store.prune(before: 2_000, appKey: nil, chunk: 1).snapshots, 0)  // the cut is exclusive
            try expect(try snapshots.snapshot(id: early), nil)
        },
        StoreCheck("a page's name is kept per app and page until changed or taken away") { store in
            let snapshots = try snapshotStore(store)
            try expect(try snapshots.pageNames(appKey: "shop"), [:])
            try snapshots.setPageName(appKey: "shop", page: "GtkBox(home)", name: "Home")
            try snapshots.setPageName(appKey: "shop", page: "Cart\u{0}€", name: "Panier \u{0}€")
            try snapshots.setPageName(appKey: "news", page: "GtkBox(home)", name: "Front page")
            try snapshots.setPageName(appKey: "shop", page: "GtkBox(home)", name: "Home page")
            try expect(try snapshots.pageNames(appKey: "shop"), ["GtkBox(home)": "Home page", "Cart\u{0}€": "Panier \u{0}€"])
            _ = try store.prune(before: Int64.max, appKey: nil, chunk: 100)
            try snapshots.setPageName(appKey: "shop", page: "GtkBox(home)", name: nil)
            try expect(try snapshots.pageNames(appKey: "shop"), ["Cart\u{0}€": "Panier \u{0}€"])
            try expect(try snapshots.pageNames(appKey: "news"), ["GtkBox(home)": "Front page"])
        },
        StoreCheck("circle mode is on per app key until its end; nil or a past end turns it off") { store in
            let snapshots = try snapshotStore(store)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            try expect(try snapshots.circleModes(), [:])
            try snapshots.setCircleMode(appKey: "shop", until: now + 60_000)
            try snapshots.setCircleMode(appKey: "news", until: now + 120_000)
            try snapshots.setCircleMode(appKey: "blog", until: now - 1)
            try expect(try snapshots.circleModes(), ["shop": now + 60_000, "news": now + 120_000])
            try expect(try snapshots.circleModeUntil(appKey: "news"), now + 120_000)
            try snapshots.setCircleMode(appKey: "shop", until: now + 5_000)  // moved
            try snapshots.setCircleMode(appKey: "news", until: nil)
            try expect(try snapshots.circleModes(), ["shop": now + 5_000])
            try snapshots.setCircleMode(appKey: "shop", until: now - 60_000)
            try expect(try snapshots.circleModes(), [:])
            try expect(try snapshots.circleModeUntil(appKey: "shop"), nil)
        },
        StoreCheck("a device seen with one user is linked to it, with two it is shared; only devices with anonymous events count; links outlive a prune") { store in
            func e(_ id: String, ts: Int64, user: String?, device: String?) -> JSONValue {
                TestEvents.event(id, ts: ts, user: user, device: device).json
            }
            _ = try store.append(batch([e("1", ts: 1_000, user: "u", device: "d"), e("2", ts: 2_000, user: nil, device: "d")]))
            _ = try store.append(batch([e("3", ts: 2_000, user: "v", device: "s"), e("4", ts: 2_000, user: "w", device: "s"), e("5", ts: 2_000, user: nil, device: "s")]))
            _ = try store.append(batch([e("6", ts: 2_000, user: "x", device: "d"), e("7", ts: 2_000, user: "x", device: nil), e("8", ts: 2_000, user: nil, device: "d")], appKey: "news"))
            // Only devices that sent an event without a user have links that matter: y's has none.
            _ = try store.append(batch([e("9", ts: 2_000, user: "y", device: "dy")]))
            let links = try store.deviceLinks(appKey: nil)
            try expect(links.user(appKey: "shop", device: "d"), "u")
            try expect(links.user(appKey: "shop", device: "s"), nil)
            try expect(links.user(appKey: "news", device: "d"), "x")
            try expect(links.merged().count, 2)
            try expect(links.user(appKey: "shop", device: "dy"), nil)
            try expect(links.actor(appKey: "shop", user: nil, device: "d"), "u")
            try expect(links.actor(appKey: "shop", user: nil, device: "s"), "s")
            try expect(try store.deviceLinks(appKey: "shop").merged(), [DeviceLink(appKey: "shop", device: "d", user: "u")])
            // The sign-in is pruned; d stays u's (a person stays one person).
            try expect(try store.prune(before: 1_500, appKey: "shop", chunk: 10).events, 1)
            try expect(try store.deviceLinks(appKey: "shop").user(appKey: "shop", device: "d"), "u")
        },
        StoreCheck("a closed store says so") { store in
            store.close()
            do {
                _ = try store.append(batch([TestEvents.json("a")]))
                throw StoreCheckFailure("append on a closed store did not throw")
            } catch let error as StoreError {
                try expect(error.code, .closed)
            }
            store.close()  // idempotent
        },
    ]

    // MARK: helpers

    static func batch(_ events: [JSONValue], appKey: String = "shop", appVersion: String? = nil) -> EventBatch {
        EventBatch(appKey: appKey, appVersion: appVersion, events: events)
    }

    static func rule(_ id: String, appKey: String = "shop") -> StoredRule {
        StoredRule(appKey: appKey, id: id, json: #"{"id":"\#(id)"}"#)
    }

    /// Snapshots keep their bound in bytes, per app and in all (`StoreOptions.snapshotBytes`):
    /// the oldest go first, never the one just stored. Runs on a store `open` makes with the
    /// options it is given (each store's test target passes its own).
    public static func checkSnapshotBytes(_ open: (StoreOptions) throws -> any CollectorStore) throws {
        let store = try open(StoreOptions(snapshotBytes: StoreOptions.SnapshotBytes(perApp: 3_000, inAll: 5_000)))
        defer { store.close() }
        let snapshots = try snapshotStore(store)
        /// A snapshot of exactly `bytes` (PNG and tree), each on a page of its own.
        func sized(_ page: String, _ app: String, _ bytes: Int = 1_000) throws -> Int64 {
            var s = snapshot(page, appKey: app, capturedAt: 1)
            s.png += [UInt8](repeating: 1, count: bytes - s.png.count - s.tree.utf8.count)
            return try snapshots.storeSnapshot(s)
        }
        func ids(_ app: String?) throws -> [Int64] { try snapshots.snapshots(appKey: app, appVersion: nil).map(\.id) }
        let shop = try (0..<4).map { i in try sized("P\(i)", "shop") }
        try expect(try ids("shop"), [shop[3], shop[2], shop[1]])  // 3,000 bytes an app
        let news = try (0..<3).map { i in try sized("N\(i)", "news") }
        try expect(try ids(nil), [news[2], news[1], news[0], shop[3], shop[2]])  // 5,000 in all
        // Larger than an app's bound alone: kept, the app's older ones and the oldest of all go.
        let large = try sized("Large", "shop", 4_000)
        try expect(try ids("shop"), [large])
        try expect(try ids(nil), [large, news[2]])
        try expect(try snapshots.snapshot(id: large)?.png.count, 4_000 - snapshot("Large", capturedAt: 1).tree.utf8.count)
    }

    static func snapshotStore(_ store: any CollectorStore) throws -> any SnapshotStore {
        guard let snapshots = store as? any SnapshotStore else {
            throw StoreCheckFailure("\(type(of: store)) is not a SnapshotStore")
        }
        return snapshots
    }

    /// A snapshot of `page` whose PNG and tree differ by page and time (and hold a 0 byte and non-ASCII text);
    /// those captured at an even time name a device (holding a 0 byte and non-ASCII text), the others none.
    static func snapshot(
        _ page: String, appKey: String = "shop", appVersion: String = "1.0", capturedAt: Int64, id: Int64 = 0
    ) -> Snapshot {
        Snapshot(
            id: id, appKey: appKey, appVersion: appVersion, page: page, capturedAt: capturedAt, receivedAt: 7,
            width: 320, height: 200, png: [0x89, 0x50, 0x4E, 0x47, 0, 0xFF] + Array("\(page)\(capturedAt)".utf8),
            tree: #"{"type":"Window","path":"\#(page)","title":"Prix: 3 €","at":\#(capturedAt)}"#,
            device: capturedAt % 2 == 0 ? "d-\(page)-€\u{0}" : nil)
    }

    /// Every stored event `query` selects, through the streaming call.
    public static func stored(_ store: any CollectorStore, _ query: EventQuery = EventQuery()) throws -> [StoredEvent] {
        var all: [StoredEvent] = []
        try store.events(query) { all.append($0); return true }
        return all
    }

    static func expect<T: Equatable>(
        _ actual: T, _ expected: T, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        guard actual == expected else { throw StoreCheckFailure("\(file):\(line): expected \(expected), got \(actual)") }
    }
}

/// One behaviour of `StoreConformance`, run on a fresh store.
public struct StoreCheck: Sendable, CustomStringConvertible {
    public let description: String
    public let run: @Sendable (any CollectorStore) throws -> Void

    init(_ description: String, _ run: @escaping @Sendable (any CollectorStore) throws -> Void) {
        self.description = description
        self.run = run
    }
}

/// A conformance check that did not hold: where, what was expected and what came.
public struct StoreCheckFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
