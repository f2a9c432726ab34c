import EventModel
import EventStore
import Foundation
import StoreSQL
import Testing
import TestSupport

@testable import PostgresStore

/// `events` partitioned by the corrected time's day: where events go, what prune drops, and the
/// migration that moves an unpartitioned table.
@Suite struct PostgresPartitionTests {
    static let day = UTCDay.milliseconds
    /// The start of today (UTC), ms.
    static var today: Int64 { UTCDay.number(of: Int64(Date().timeIntervalSince1970 * 1000)) * day }

    /// Event `id` at `time`, no `sentAt`: its corrected time is its `ts`.
    static func event(_ id: String, at time: Int64) -> JSONValue { TestEvents.json(id, ts: time) }

    static func partitionCounts(_ uri: String) throws -> [String] {
        try PostgresServer.shared().psql(uri: uri, "SELECT tableoid::regclass::text AS p, count(*) FROM events GROUP BY 1 ORDER BY 1")
    }

    @Test(.timeLimit(.minutes(3))) func eachDayHasItsPartitionAndPruneDropsWholeDays() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresEventStore(uri: uri)
        defer { store.close() }
        let today = Self.today
        // 10 events on each of the last 6 days (every 2 hours from midnight), 3 in 1970 and 2 in
        // 2100 (outside the window: `events_other`).
        var events = (0..<6).flatMap { d in (0..<10).map { i in Self.event("d\(d)-\(i)", at: today - Int64(d) * Self.day + Int64(i) * 7_200_000) } }
        events += (0..<3).map { Self.event("old-\($0)", at: Int64($0)) } + (0..<2).map { Self.event("far-\($0)", at: 4_102_444_800_000 + Int64($0)) }
        #expect(try store.append(EventBatch(appKey: "shop", events: events)).stored == 65)
        func name(_ d: Int64) -> String {
            let f = DateFormatter()
            f.dateFormat = "yyyyMMdd"
            f.timeZone = TimeZone(identifier: "UTC")
            return "events_" + f.string(from: Date(timeIntervalSince1970: Double(today - d * Self.day) / 1000))
        }
        #expect(try Self.partitionCounts(uri) == (0..<6).reversed().map { "\(name(Int64($0)))|10" } + ["events_other|5"])
        // Prune before noon four days ago: day 5 is dropped whole (one transaction); day 4's 6
        // events before noon and 1970's 3 (in `events_other`) are deleted in chunks.
        let cut = today - 4 * Self.day + 12 * 3_600_000
        let outcome = try store.prune(before: cut, appKey: nil, chunk: 4)
        #expect(outcome.events == 10 + 6 + 3)
        #expect(try Self.partitionCounts(uri) == [name(4) + "|4"] + (0..<4).reversed().map { "\(name(Int64($0)))|10" } + ["events_other|2"])
        #expect(try PostgresServer.shared().psql(uri: uri, "SELECT count(*) FROM event_ids") == ["46"])
        #expect(try store.totals(.all).events == 46)
        // A pruned event sent again is stored again (its id left with it); a kept one is a duplicate.
        let again = try store.append(EventBatch(appKey: "shop", events: [Self.event("d5-0", at: today - 5 * Self.day), Self.event("d0-0", at: today)]))
        #expect(again.stored == 1 && again.duplicates == 1)
        #expect(try Self.partitionCounts(uri).first == name(5) + "|1")
    }

    /// A database at schema 4 (one unpartitioned `events`) migrates: every event keeps its
    /// `seq` and its place, ids stay unique, new events continue the numbering.
    @Test(.timeLimit(.minutes(3))) func theMigrationMovesAnUnpartitionedTable() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let c = try PostgresConnection(uri: uri)
        try c.execute("CREATE TABLE autotrack_schema (version integer NOT NULL)")
        for m in PostgresSchema.migrations.prefix(4) { try c.executeScript(m) }
        try c.execute("INSERT INTO autotrack_schema VALUES (4)")
        let today = Self.today
        try server.psql(
            uri: uri,
            """
            INSERT INTO events (app_key, id, ts, type, name, props, received_at, corrected_ts)
            SELECT 'shop', 'e-' || n, t, 'click', 'n', '{}', t, t
            FROM generate_series(1, 30) AS n, LATERAL (SELECT \(today) - (n % 3) * \(Self.day) + n AS t) AS x;
            INSERT INTO events (app_key, id, ts, type, name, props, received_at, corrected_ts) VALUES ('shop', 'old', 5, 'click', 'n', '{}', 5, 5);
            DELETE FROM events WHERE id = 'e-30';
            """)
        let before = try server.psql(uri: uri, "SELECT seq, id, corrected_ts FROM events ORDER BY seq")
        let store = try PostgresEventStore(uri: uri)
        defer { store.close() }
        #expect(try store.schemaVersion() == PostgresSchema.currentVersion)
        #expect(try server.psql(uri: uri, "SELECT seq, id, corrected_ts FROM events ORDER BY seq") == before)
        #expect(try server.psql(uri: uri, "SELECT count(*) FROM event_ids") == ["30"])
        #expect(try Self.partitionCounts(uri).count == 4)  // three days and `events_other`
        let outcome = try store.append(EventBatch(appKey: "shop", events: [Self.event("e-1", at: today), Self.event("new", at: today)]))
        #expect(outcome.stored == 1 && outcome.duplicates == 1)
        // The numbering goes on after the old sequence's last value (31: e-30 was drawn, then
        // deleted). The repeated e-1 makes the COPY path draw seqs, roll back and hand the group
        // to the group insert, which draws again: the seq is past 31, not a fixed number.
        #expect(try server.psql(uri: uri, "SELECT seq > 31 FROM events WHERE id = 'new'") == ["t"])
    }
}
