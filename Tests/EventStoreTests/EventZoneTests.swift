import EventModel
import EventStore
import Foundation
@testable import SQLiteStore
import StoreSQL
import Testing
import TestSupport

/// The time zone map of `events` (EventZones.swift, migration 11): one row per commit and app,
/// kept by appends and prunes, built by the migration, and what time-bounded queries read.
@Suite struct EventZoneTests {
    static let hour: Int64 = 3_600_000
    static let t0 = TestEvents.time

    /// A batch of `shop` (or `app`) events `prefix0`, `prefix1`, … at `times`.
    static func batch(_ prefix: String, _ times: [Int64], app: String = "shop") -> EventBatch {
        EventBatch(appKey: app, events: times.enumerated().map { (i, t) in TestEvents.json("\(prefix)\(i)", ts: t) })
    }

    /// The map's rows as `app|first_seq|last_seq|min_ts|max_ts`, in seq order.
    /// Appends `batch` and stores it in `events` before returning: a commit of `events` per
    /// append (the ingest log's thread would store batches appended close together in one).
    @discardableResult
    static func commit(_ store: SQLiteEventStore, _ batch: EventBatch) throws -> BatchOutcome {
        let outcome = try store.append(batch)
        try store.ingestCurrent()
        return outcome
    }

    static func zones(_ path: String) throws -> [String] {
        try sqlite(path, "SELECT app_key, first_seq, last_seq, min_ts, max_ts FROM event_zones ORDER BY first_seq, app_key")
    }

    /// How many stored events no zone of their app holds (seq and time): must be none.
    static func unmapped(_ path: String) throws -> [String] {
        try sqlite(
            path,
            """
            SELECT COUNT(*) FROM events AS e WHERE NOT EXISTS (SELECT 1 FROM event_zones AS z WHERE z.app_key = e.app_key
              AND e.seq BETWEEN z.first_seq AND z.last_seq AND e.corrected_ts BETWEEN z.min_ts AND z.max_ts)
            """)
    }

    static func ids(_ store: SQLiteEventStore, _ filter: EventFilter) throws -> [String] {
        var ids: [String] = []
        try store.events(EventQuery(filter: filter)) { e in
            ids.append(e.event.id)
            return true
        }
        return ids
    }

    @Test func eachCommitWritesOneZonePerAppAndABatchOfRepeatsNone() throws {
        let path = temporaryDatabase("zones")
        let store = try SQLiteEventStore(path: path)
        try Self.commit(store, Self.batch("a", [Self.t0 + 3, Self.t0, Self.t0 + 7]))
        try Self.commit(store, Self.batch("b", [Self.t0 + Self.hour], app: "other"))
        #expect(try Self.commit(store, Self.batch("a", [Self.t0 + 3])).duplicates == 1)
        store.close()
        #expect(try Self.zones(path) == ["shop|1|3|\(Self.t0)|\(Self.t0 + 7)", "other|4|4|\(Self.t0 + Self.hour)|\(Self.t0 + Self.hour)"])
        #expect(try sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_corrected_ts'") == ["0"])
    }

    @Test func aLateEventWidensItsCommitsZoneAndARangedQueryFindsIt() throws {
        let path = temporaryDatabase("late")
        let store = try SQLiteEventStore(path: path)
        for h in 0..<4 {
            let start = Self.t0 + Int64(h) * Self.hour
            try Self.commit(store, Self.batch("h\(h)-", (0..<10).map { start + Int64($0) * 60_000 }))
        }
        // Three days late, in the last commit.
        let late = Self.t0 - 72 * Self.hour
        try Self.commit(store, Self.batch("l", [Self.t0 + 5 * Self.hour, late, Self.t0 + 5 * Self.hour + 1]))
        #expect(try Self.zones(path).last == "shop|41|43|\(late)|\(Self.t0 + 5 * Self.hour + 1)")
        #expect(try Self.unmapped(path) == ["0"])
        let around = EventFilter(appKey: "shop", since: late - Self.hour, until: late + Self.hour)
        #expect(try Self.ids(store, around) == ["l1"])
        #expect(try store.eventCounts(around) == [EventCount(type: "click", name: "n", count: 1)])
        #expect(try store.totals(EventFilter(since: late, until: late + 1)).events == 1)
        // An hour of the ordinary commits: its ten events, and not the late one.
        let second = EventFilter(since: Self.t0 + Self.hour, until: Self.t0 + 2 * Self.hour)
        #expect(try Self.ids(store, second) == (0..<10).map { "h1-\($0)" })
    }

    @Test func aPruneThroughAZoneShrinksItAndOneWhollyBeforeTheCutGoes() throws {
        let path = temporaryDatabase("prune")
        let store = try SQLiteEventStore(path: path)
        try Self.commit(store, Self.batch("a", (0..<10).map { Self.t0 + Int64($0) * Self.hour }))
        try Self.commit(store, Self.batch("b", [Self.t0 + 20 * Self.hour, Self.t0 + 21 * Self.hour]))
        try Self.commit(store, Self.batch("o", [Self.t0 + 2 * Self.hour], app: "other"))
        let first = try store.prune(before: Self.t0 + 5 * Self.hour, appKey: "shop", chunk: 3)
        #expect(first.events == 5)
        #expect(
            try Self.zones(path) == [
                "shop|6|10|\(Self.t0 + 5 * Self.hour)|\(Self.t0 + 9 * Self.hour)",
                "shop|11|12|\(Self.t0 + 20 * Self.hour)|\(Self.t0 + 21 * Self.hour)",
                "other|13|13|\(Self.t0 + 2 * Self.hour)|\(Self.t0 + 2 * Self.hour)",
            ])
        #expect(try Self.ids(store, EventFilter(since: Self.t0, until: Self.t0 + 6 * Self.hour)) == ["a5", "o0"])
        _ = try store.prune(before: Self.t0 + 15 * Self.hour, appKey: nil, chunk: 100)
        #expect(try Self.zones(path) == ["shop|11|12|\(Self.t0 + 20 * Self.hour)|\(Self.t0 + 21 * Self.hour)"])
        #expect(try Self.ids(store, EventFilter(since: Self.t0 + 20 * Self.hour, until: Self.t0 + 20 * Self.hour + 1)) == ["b0"])
        #expect(try Self.unmapped(path) == ["0"])
    }

    @Test func migration11MapsAVersion10DatabaseAndAnswersTheSame() throws {
        let path = temporaryDatabase("migrate11")
        let filters = [
            EventFilter(appKey: "shop", since: Self.t0 + 5 * Self.hour + 900_000, until: Self.t0 + 5 * Self.hour + 2_700_000),
            EventFilter(since: Self.t0 + 30 * 60_000, until: Self.t0 + 26 * Self.hour),
            EventFilter(appKey: "other", until: Self.t0 + 24 * Self.hour),
        ]
        var before: [[String]] = []
        do {
            let store = try SQLiteEventStore(path: path)
            for h in 0..<48 where h % 5 == 0 {
                try Self.commit(store, Self.batch("s\(h)-", (0..<7).map { Self.t0 + Int64(h) * Self.hour + Int64($0) * 600_000 }))
                try Self.commit(store, Self.batch("o\(h)-", [Self.t0 + Int64(h) * Self.hour], app: "other"))
            }
            before = try filters.map { f in try Self.ids(store, f) }
            store.close()
        }
        // Back to version 10: the time index instead of the map, no device on snapshots nor page names (13).
        _ = try sqlite(
            path,
            "DROP TABLE event_zones; CREATE INDEX events_corrected_ts ON events (app_key, corrected_ts); "
                + "ALTER TABLE snapshots DROP COLUMN device; DROP TABLE page_names; PRAGMA user_version = 10;")
        #expect(try sqlite(path, "PRAGMA user_version") == ["10"])
        let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
        #expect(try store.schemaVersion() == SQLiteEventStore.currentSchemaVersion)
        #expect(try sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_corrected_ts'") == ["0"])
        #expect(try sqlite(path, "SELECT COUNT(*) > 0 FROM event_zones") == ["1"])
        #expect(try Self.unmapped(path) == ["0"])
        #expect(try filters.map { f in try Self.ids(store, f) } == before)
        #expect(before.map(\.count) == [3, 43, 5])
    }

    @Test func aSubDayRangeIsReadByRowidRangesNotAScan() throws {
        let path = temporaryDatabase("plan")
        let store = try SQLiteEventStore(path: path)
        for d in 0..<5 {
            try Self.commit(store, Self.batch("d\(d)-", (0..<20).map { Self.t0 + Int64(d) * 24 * Self.hour + Int64($0) * 60_000 }))
        }
        store.close()
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let indexes = try db.query("SELECT name FROM pragma_index_list('events')") { r throws(SQLDecodingError) in try r.decode("name", as: String.self) }
        #expect(!indexes.contains("events_corrected_ts"))
        let day2 = Self.t0 + 48 * Self.hour
        let f = try ZonedFilter(EventFilter(appKey: "shop", since: day2, until: day2 + Self.hour), db)
        #expect(f.seqs == [41...60])
        let plan = try db.query("EXPLAIN QUERY PLAN SELECT type, name, COUNT(*) AS n FROM events\(SQLQuery.where(f.conditions())) GROUP BY type, name") {
            r throws(SQLDecodingError) in try r.decode("detail", as: String.self)
        }
        #expect(plan.contains { $0.contains("SEARCH events USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN events") }, "\(plan)")
        // The map itself is read from the zones that end at or after `since`, not all of them.
        let lookup = try db.query("EXPLAIN QUERY PLAN SELECT first_seq, last_seq FROM event_zones WHERE max_ts >= \(day2) AND min_ts < \(day2 + Self.hour)") {
            r throws(SQLDecodingError) in try r.decode("detail", as: String.self)
        }
        #expect(lookup.contains { $0.contains("USING INDEX event_zones_end (max_ts>?)") }, "\(lookup)")
    }

    /// Traffic in time order, many small commits (a device's batch each, as real agents send
    /// them), two apps interleaved: each app's commits extend its latest zone up to a quarter
    /// hour, so the map grows by a row per quarter hour and app, not per commit, and ranged
    /// queries answer as before.
    @Test func commitsInTimeOrderExtendTheirAppsLatestZoneUpToAQuarterHour() throws {
        let path = temporaryDatabase("extend")
        let store = try SQLiteEventStore(path: path)
        let minute: Int64 = 60_000
        for m in 0..<40 {
            let t = Self.t0 + Int64(m) * minute
            try Self.commit(store, Self.batch("s\(m)-", [t, t + 20_000]))
            try Self.commit(store, Self.batch("o\(m)-", [t + 30_000], app: "other"))
        }
        store.close()
        let rows = try sqlite(path, "SELECT app_key, COUNT(*), MAX(max_ts - min_ts) FROM event_zones GROUP BY app_key ORDER BY app_key")
        // shop: minutes 0–14 (its last event 14:20 after its first), 15–29, 30–39; other (one
        // event a minute): minutes 0–15 (15:00 exactly is within), 16–31, 32–39.
        #expect(rows == ["other|3|\(15 * minute)", "shop|3|\(14 * minute + 20_000)"])
        #expect(try Self.unmapped(path) == ["0"])
        let reopened = try SQLiteEventStore(path: path)
        defer { reopened.close() }
        for (since, until) in [(5, 7), (14, 16), (29, 31), (0, 40), (39, 41)] {
            let f = EventFilter(appKey: "shop", since: Self.t0 + Int64(since) * minute, until: Self.t0 + Int64(until) * minute)
            let expected = (since..<min(until, 40)).flatMap { m in ["s\(m)-0", "s\(m)-1"] }
            #expect(try Self.ids(reopened, f) == expected, "\(since)–\(until)")
        }
    }

    /// A commit with a late event is a zone of its own, and the next commit in time order
    /// does not join it (it would read the late day's span): it starts a zone of its own.
    @Test func aLateCommitNeitherExtendsNorIsExtended() throws {
        let path = temporaryDatabase("late-alone")
        let store = try SQLiteEventStore(path: path)
        let late = Self.t0 - 48 * Self.hour
        try Self.commit(store, Self.batch("a", [Self.t0]))
        try Self.commit(store, Self.batch("b", [Self.t0 + 1_000, late]))
        try Self.commit(store, Self.batch("c", [Self.t0 + 2_000]))
        try Self.commit(store, Self.batch("d", [Self.t0 + 3_000]))
        store.close()
        #expect(try Self.zones(path) == ["shop|1|1|\(Self.t0)|\(Self.t0)", "shop|2|3|\(late)|\(Self.t0 + 1_000)", "shop|4|5|\(Self.t0 + 2_000)|\(Self.t0 + 3_000)"])
        #expect(try Self.unmapped(path) == ["0"])
    }

    /// An app whose latest zone is further back than the map's last 64 rows starts a zone of
    /// its own (the lookup reads a rowid range at the map's end, never an index or the whole map).
    @Test func anAppQuietForManyZonesStartsANewOne() throws {
        let path = temporaryDatabase("quiet")
        let store = try SQLiteEventStore(path: path)
        try Self.commit(store, Self.batch("s0-", [Self.t0]))
        // 70 commits of another app, each an hour after the last: a zone each.
        for h in 0..<70 { try Self.commit(store, Self.batch("o\(h)-", [Self.t0 - Int64(h + 1) * Self.hour], app: "other")) }
        try Self.commit(store, Self.batch("s1-", [Self.t0 + 1_000]))
        store.close()
        #expect(try sqlite(path, "SELECT COUNT(*) FROM event_zones WHERE app_key = 'shop'") == ["2"])
        #expect(try sqlite(path, "SELECT COUNT(*) FROM event_zones WHERE app_key = 'other'") == ["70"])
        #expect(try Self.unmapped(path) == ["0"])
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        let plan = try db.query("EXPLAIN QUERY PLAN " + EventZones.Recorder.latest("shop")) { r throws(SQLDecodingError) in
            try r.decode("detail", as: String.self)
        }
        #expect(plan.contains { $0.contains("SEARCH event_zones USING INTEGER PRIMARY KEY (rowid>?)") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN event_zones") }, "\(plan)")
    }

    @Test func aZoneGrowsOnlyForwardAndWithinItsBounds() {
        let z = EventZones.Zone(appKey: "shop", seqs: 100...199, times: 1_000...2_000)
        func next(_ seqs: ClosedRange<Int64>, _ times: ClosedRange<Int64>) -> EventZones.Zone {
            EventZones.Zone(appKey: "shop", seqs: seqs, times: times)
        }
        #expect(EventZones.extended(z, by: next(250...260, 1_500...3_000)) == next(100...260, 1_000...3_000))
        // Earlier times join too, within the span.
        #expect(EventZones.extended(z, by: next(250...260, 500...600)) == next(100...260, 500...2_000))
        // Past the span, past the seqs, or not after the zone: nothing.
        #expect(EventZones.extended(z, by: next(250...260, 1_000...(1_000 + StoreTuning.zoneMaxSpan + 1))) == nil)
        #expect(EventZones.extended(z, by: next(250...(100 + StoreTuning.zoneMaxSeqs), 1_500...1_600)) == nil)
        #expect(EventZones.extended(z, by: next(150...160, 1_500...1_600)) == nil)
        #expect(EventZones.extended(z, by: next((99 + StoreTuning.zoneMaxSeqs)...(99 + StoreTuning.zoneMaxSeqs), 1_500...1_600)) != nil)
    }

    @Test func rangesCloseTogetherAreMergedAndNeverMoreThanTheBound() {
        #expect(EventZones.merged([20...30, 1...10, 5...12, 10_000...10_010]) == [1...30, 10_000...10_010])
        // Two clusters of 50 ranges each, 100,000 apart inside a cluster: one range per cluster.
        let far: Int64 = 1_000_000_000_000
        let starts: [Int64] = (0..<100).map { i in Int64(i % 50) * 100_000 + (i < 50 ? 0 : far) }
        let apart: [ClosedRange<Int64>] = starts.map { s in s...(s + 9) }
        let merged = EventZones.merged(apart.shuffled())
        #expect(merged == [0...4_900_009, far...(far + 4_900_009)])
        #expect(apart.allSatisfy { r in merged.contains { $0.lowerBound <= r.lowerBound && r.upperBound <= $0.upperBound } })
        #expect(EventZones.condition([]) == "0")
    }
}
