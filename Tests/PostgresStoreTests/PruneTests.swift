import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

@testable import Collector
@testable import PostgresStore

/// Retention on both stores: the same data pruned the same way, in bounded transactions.
@Suite struct PruneTests {
    /// 300 events of two apps with times 0, 1000, ... ms, plus two rejected events per batch.
    static func fill(_ store: any CollectorStore) throws {
        for b in 0..<6 {
            var events: [JSONValue] = (0..<50).map { i in
                let n = b * 50 + i
                return TestEvents.json("e-\(n)", extra: [("ts", .int(Int64(n) * 1000))])
            }
            events.append(.object(JSONObject([("id", .string("bad-\(b)")), ("ts", .string("noon"))])))
            _ = try store.append(EventBatch(appKey: b % 2 == 0 ? "shop" : "news", events: events))
        }
    }

    @Test func pruneDeletesTheSameRowsFromBothStoresInChunks() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let pg = try PostgresEventStore(uri: uri)
        let sqlite = try SQLiteEventStore(
            path: Fixtures.temporaryDirectory("prune").appendingPathComponent("events.sqlite").path)
        defer { pg.close(); sqlite.close() }
        for store in [pg, sqlite] as [any CollectorStore] {
            try Self.fill(store)
            // shop's events are batches 0, 2, 4: times 0–49 s, 100–149 s, 200–249 s.
            let outcome = try store.prune(before: 120_000, appKey: "shop", chunk: 7)
            #expect(outcome.events == 70)
            #expect(outcome.rejected == 0)  // received now, not before 120 s after the epoch
            #expect(outcome.transactions == 11 + 1 + 1 + 1)  // 70 rows in chunks of 7 (the last one empty), then one per other table
            #expect(try store.totals(EventFilter(appKey: "shop")).events == 80)
            #expect(try store.totals(EventFilter(appKey: "news")).events == 150)
            let all = try store.prune(before: Int64(Date().timeIntervalSince1970 * 1000) + 60_000, appKey: nil, chunk: 1_000)
            #expect(all == PruneOutcome(events: 230, rejected: 6, batches: 6, transactions: 4))  // one per table
            #expect(try store.totals(.all) == StoreTotals())
        }
    }

    @Test func pruneTakesADateOrAnISOTime() throws {
        #expect(PruneCommand.date("2026-01-01")?.timeIntervalSince1970 == 1_767_225_600)
        #expect(PruneCommand.date("2026-01-01T12:00:00Z")?.timeIntervalSince1970 == 1_767_268_800)
        #expect(PruneCommand.date("yesterday") == nil)
    }
}
