import Analytics
import EventModel
import EventStore
import Foundation
@testable import SQLiteStore
import TestSupport
import Testing

/// SQLite's `rollup_kind_events` keeps each kind's events in blocks (KindEventBlocks.swift): a
/// late event joins the block that covers it, a block past its size splits, and a reader
/// filters the entries of a block that crosses a bound of its range. Whatever the blocks, the
/// rows funnels and retention read from them equal those read from the events (the protocol's
/// default over the scan), and so do the funnels and retention tables.
@Suite struct KindEventBlockTests {
    typealias F = AnalyticsFixture

    static let tap = EventKind(type: "click", name: "tap")
    static let home = EventKind(type: "page_enter", name: "Home")
    static let launch = EventKind(type: "app_start", name: "launch")

    func temporaryPath() -> String { Fixtures.temporaryDirectory("kind-blocks").appendingPathComponent("events.sqlite").path }

    /// `count` events of one kind from `first` on, `step` ms apart, of seven users.
    static func run(_ prefix: String, _ kind: EventKind, count: Int, from first: Int64, step: Int64 = 1_000) -> [JSONValue] {
        (0..<count).map { i in
            F.event(
                "\(prefix)\(i)", kind.type, kind.name, at: first + Int64(i) * step, user: "u\(i % 7)", device: "d\(i % 5)", session: "s\(i % 3)")
        }
    }

    /// Appends `events` (in batches of at most 200) and has the paused worker's connection
    /// apply them as one chunk.
    static func append(_ store: SQLiteEventStore, _ events: [JSONValue], appKey: String = "shop", version: String? = "1.0") throws {
        for start in stride(from: 0, to: events.count, by: 200) {
            let batch = Array(events[start..<min(start + 200, events.count)])
            #expect(try store.append(EventBatch(appKey: appKey, appVersion: version, events: batch)).stored == batch.count)
        }
        #expect(try store.activityRollup(.all) != nil)
    }

    /// The blocks as "first_ts|entries", in key order.
    static func blocks(_ path: String) throws -> [String] {
        try sqlite(path, "SELECT first_ts, entries FROM rollup_kind_events ORDER BY kind, first_ts, first_seq")
    }

    /// Expects every kind's blocks in order without overlapping (each ends before the next
    /// starts), none past `StoreTuning.kindEventBlockEntries` or empty, and one entry per stored event.
    static func expectWellFormedBlocks(_ path: String) throws {
        let overlapping = try sqlite(
            path,
            """
            SELECT COUNT(*) FROM (SELECT kind, last_ts, last_seq, LEAD(first_ts) OVER w AS nt, LEAD(first_seq) OVER w AS ns
            FROM rollup_kind_events WINDOW w AS (PARTITION BY kind ORDER BY first_ts, first_seq))
            WHERE nt IS NOT NULL AND (last_ts, last_seq) >= (nt, ns)
            """)
        #expect(overlapping == ["0"])
        #expect(
            try sqlite(path, "SELECT COUNT(*) FROM rollup_kind_events WHERE entries < 1 OR entries > \(StoreTuning.kindEventBlockEntries)") == ["0"])
        #expect(try sqlite(path, "SELECT SUM(entries) = (SELECT COUNT(*) FROM events) FROM rollup_kind_events") == ["1"])
    }

    /// Expects the store's rows of `kinds` (every actor kind, in time order), its funnel of
    /// them and its retention of the first two, from the rollups, to equal those the protocol's
    /// default reads from the events, for each of `filters`.
    static func expectRollupsAnswerAsTheEvents(_ store: SQLiteEventStore, kinds: [EventKind], filters: [EventFilter]) throws {
        #expect(try store.activityRollup(.all) != nil)  // applied, and no app waits for a rebuild
        for filter in filters {
            for by in ActorKind.allCases {
                let query = ActorEventQuery(filter: filter, kinds: kinds, actor: by, inTimeOrder: true)
                var fast: [ActorEvent] = [], reference: [ActorEvent] = []
                try store.actorEvents(query) { fast.append($0); return true }
                try store.scanningActorEvents(query) { reference.append($0); return true }
                #expect(FunnelTests.meaning(fast) == FunnelTests.meaning(reference), "\(by), \(filter)")
                #expect(fast.map(\.time) == reference.map(\.time), "\(by), \(filter)")
                var funnel = FunnelCounter(FunnelDefinition(steps: kinds, withinMilliseconds: 600_000, by: by))
                var referenceFunnel = funnel
                try store.actorEvents(funnel.query(filter)) { funnel.add($0); return true }
                try store.scanningActorEvents(referenceFunnel.query(filter)) { referenceFunnel.add($0); return true }
                #expect(funnel.result() == referenceFunnel.result(), "\(by), \(filter)")
                var retention = RetentionCounter(RetentionDefinition(start: kinds[0], returning: kinds[min(1, kinds.count - 1)], periods: 3, by: by))
                var referenceRetention = retention
                try store.actorEvents(retention.query(filter)) { retention.add($0); return true }
                try store.scanningActorEvents(referenceRetention.query(filter)) { referenceRetention.add($0); return true }
                #expect(retention.result() == referenceRetention.result(), "\(by), \(filter)")
            }
        }
    }

    @Test(.timeLimit(.minutes(3))) func lateEventsJoinTheBlockThatCoversThemAndAFullOneSplits() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseRollupWorker(true)
        let m = StoreTuning.kindEventBlockEntries, n = m + m / 4, t = F.day0, s: Int64 = 1_000
        let filters = [EventFilter.all, EventFilter(since: t + 100 * s + 1, until: t + Int64(m + 20) * s)]
        // In time order: the last block fills from the front, the rest starts the next one.
        try Self.append(store, Self.run("a", Self.tap, count: n, from: t))
        #expect(try Self.blocks(path) == ["\(t)|\(m)", "\(t + Int64(m) * s)|\(n - m)"])
        // A late event among the second block's: it joins that block.
        try Self.append(store, Self.run("late", Self.tap, count: 1, from: t + Int64(m + 10) * s + 500))
        #expect(try Self.blocks(path) == ["\(t)|\(m)", "\(t + Int64(m) * s)|\(n - m + 1)"])
        try Self.expectRollupsAnswerAsTheEvents(store, kinds: [Self.tap], filters: filters)
        // One among the first block's, which is full: it splits into two halves.
        try Self.append(store, Self.run("split", Self.tap, count: 1, from: t + 10 * s + 500))
        let half = (m + 1) / 2
        // The merged entries: a0…a10, the late one, a11…; the second half starts at a(half − 1).
        #expect(try Self.blocks(path) == ["\(t)|\(half)", "\(t + Int64(half - 1) * s)|\(m + 1 - half)", "\(t + Int64(m) * s)|\(n - m + 1)"])
        // One before every stored event: the first block takes it, and starts with it.
        try Self.append(store, Self.run("early", Self.tap, count: 1, from: t - 5 * s))
        #expect(
            try Self.blocks(path) == ["\(t - 5 * s)|\(half + 1)", "\(t + Int64(half - 1) * s)|\(m + 1 - half)", "\(t + Int64(m) * s)|\(n - m + 1)"])
        try Self.expectWellFormedBlocks(path)
        try Self.expectRollupsAnswerAsTheEvents(store, kinds: [Self.tap], filters: filters)
    }

    @Test(.timeLimit(.minutes(3))) func aRangeBoundInsideABlockFiltersItsEntries() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseRollupWorker(true)
        let m = Int64(StoreTuning.kindEventBlockEntries), t = F.day0, step: Int64 = 997
        // Three kinds interleaved, each over several blocks; entries 997 ms apart.
        var events: [JSONValue] = []
        for (k, kind) in [Self.home, Self.tap, Self.launch].enumerated() {
            events += Self.run("k\(k)-", kind, count: Int(3 * m), from: t + Int64(k) * 300, step: step)
        }
        try Self.append(store, events)
        #expect(try sqlite(path, "SELECT COUNT(*) FROM rollup_kind_events") == ["9"])
        let inFirst = t + 20 * step + 1, inSecond = t + (m + 40) * step, entry = t + (m + 7) * step, last = t + (3 * m - 1) * step + 600
        let filters = [
            EventFilter(since: inFirst), EventFilter(until: inSecond), EventFilter(since: inFirst, until: inSecond),
            // Both bounds in one block; bounds on an entry's time (since takes it, until leaves it).
            EventFilter(since: inSecond, until: inSecond + 30 * step), EventFilter(since: entry), EventFilter(until: entry),
            EventFilter(since: entry, until: entry + step), EventFilter(since: entry, until: entry),
            // Past every block's end, and before every block.
            EventFilter(since: last + 1), EventFilter(until: t), EventFilter(since: last), EventFilter(since: t - 1, until: last + 1),
        ]
        try Self.expectRollupsAnswerAsTheEvents(store, kinds: [Self.home, Self.tap, Self.launch], filters: filters)
        var rows = 0
        try store.actorEvents(ActorEventQuery(filter: EventFilter(since: inFirst, until: inSecond), kinds: [Self.home])) { _ in rows += 1; return true }
        #expect(rows == Int(m + 40 - 21))
    }

    @Test(.timeLimit(.minutes(3))) func aMalformedBlockIsAnErrorNotACrashOrAWrongAnswer() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseRollupWorker(true)
        try Self.append(store, Self.run("a", Self.tap, count: 10, from: F.day0))
        // The last entry cut short, no entries where the row says 10, a varint running past the end.
        for bytes in ["substr(events, 1, length(events) - 1)", "X''", "X'FF'"] {
            _ = try sqlite(path, "UPDATE rollup_kind_events SET events = \(bytes)")
            #expect(throws: StoreError.self) { try store.funnel(FunnelDefinition(steps: [Self.tap]), filter: .all) }
        }
        // The writer reads it too, when a late event falls in it.
        let late = EventBatch(appKey: "shop", appVersion: "1.0", events: Self.run("late", Self.tap, count: 1, from: F.day0 + 500))
        #expect(try store.append(late).stored == 1)
        #expect(throws: StoreError.self) { try store.activityRollup(.all) }
    }

    @Test(.timeLimit(.minutes(5))) func manyKindsAndSourcesLateAndRebuiltAnswerAsTheEvents() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseRollupWorker(true)
        var g = SeededGenerator(seed: 25)
        let names = ["Home", "List", "Cart", "Pay"]
        let kinds = names.map { EventKind(type: "page_enter", name: $0) } + names.map { EventKind(type: "click", name: $0) } + [Self.launch]
        var id = 0
        // Batches of three apps and versions at times all over three days, out of order (late
        // events in most chunks, blocks splitting), a chunk applied every few batches.
        for round in 0..<24 {
            var events: [JSONValue] = []
            let base = F.day0 + Int64.random(in: 0..<3, using: &g) * F.day + Int64.random(in: 0..<F.day, using: &g)
            for _ in 0..<Int.random(in: 100...600, using: &g) {
                id += 1
                let kind = kinds.randomElement(using: &g)!
                let user = Int.random(in: 0..<4, using: &g) == 0 ? nil : "u\(Int.random(in: 0..<40, using: &g))"
                events.append(
                    F.event(
                        "e\(id)", kind.type, kind.name, at: base + Int64.random(in: 0..<2 * F.hour, using: &g), user: user,
                        device: ["d1", "d2", "d3", nil].randomElement(using: &g)!, session: "s\(Int.random(in: 0..<9, using: &g))"))
            }
            let app = ["shop", "shop", "blog", "news"].randomElement(using: &g)!
            let version = ["1.0", "2.0", nil].randomElement(using: &g)!
            #expect(try store.append(EventBatch(appKey: app, appVersion: version, events: events)).stored == events.count)
            if round % 3 == 2 { #expect(try store.activityRollup(.all) != nil) }
        }
        try Self.expectWellFormedBlocks(path)
        // Blocks that split: neither full nor their kind's last.
        let split = try sqlite(
            path,
            """
            SELECT COUNT(*) FROM rollup_kind_events b WHERE entries < \(StoreTuning.kindEventBlockEntries)
            AND EXISTS (SELECT 1 FROM rollup_kind_events n WHERE n.kind = b.kind AND n.first_ts > b.first_ts)
            """)
        #expect(Int(split.first ?? "") ?? 0 >= 9)
        let inside = F.day0 + F.day + 7 * F.hour + 12_345
        let filters = [
            EventFilter.all, EventFilter(appKey: "shop"), EventFilter(appKey: "shop", appVersion: "2.0"), EventFilter(appVersion: "1.0"),
            EventFilter(appKey: "blog", since: inside), EventFilter(since: inside, until: inside + F.day), EventFilter(appKey: "none"),
        ]
        let steps = [kinds[0], kinds[4], kinds[2]]
        try Self.expectRollupsAnswerAsTheEvents(store, kinds: steps, filters: filters)
        // One app's rollups rebuilt from its first event: its entries leave every block first.
        _ = try sqlite(path, "INSERT INTO rollup_backlog VALUES ('shop', 0)")
        try store.rebuildRollups { _ in }
        try Self.expectWellFormedBlocks(path)
        try Self.expectRollupsAnswerAsTheEvents(store, kinds: steps, filters: filters)
    }
}
