import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Synchronization
import TestSupport
import Testing

/// Who rebuilds the SQLite rollups that wait in `rollup_backlog`: a collector on a thread of its
/// own once it serves, and `prune` after pruning, both saying how far they got.
@Suite struct RollupRebuildTests {
    /// A database of `shop` events whose rollups wait to be rebuilt (as after a migration).
    func database(events: Int) throws -> String {
        let path = Fixtures.temporaryDirectory("rollup-rebuild").appendingPathComponent("events.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let day0: Int64 = 1_793_491_200_000  // 2026-11-01
        let batch = (0..<events).map {
            TrackEvent(id: "e\($0)", ts: day0 + Int64($0) * 60_000, type: .click, name: "tap", path: "V/Buy", user: "u\($0 % 7)").json
        }
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: batch))
        store.close()
        _ = try sqlite(path, "INSERT OR REPLACE INTO rollup_backlog VALUES ('shop', 0); INSERT OR REPLACE INTO rollup_pages_backlog VALUES ('shop', 0)")
        return path
    }

    @Test func aCollectorRebuildsWaitingRollupsWhileItServesAndSaysHowFarItGot() throws {
        let path = try database(events: 12_000)
        let lines = Mutex<[String]>([])
        let collector = EmbeddedCollector(dbPath: path, options: EmbeddedCollector.Options(), log: { line in lines.withLock { $0.append(line) } })
        _ = try collector.start()
        defer { collector.stop() }
        var waiting = ["1"]
        for _ in 0..<200 where waiting != ["0"] {
            Thread.sleep(forTimeInterval: 0.05)
            waiting = try sqlite(path, "SELECT (SELECT COUNT(*) FROM rollup_backlog) + (SELECT COUNT(*) FROM rollup_pages_backlog)")
        }
        #expect(waiting == ["0"])
        #expect(try collector.store?.activityRollup(EventFilter(appKey: "shop")) != nil)
        let logged = lines.withLock { $0 }
        #expect(logged.first == "rebuilding the report rollups of app shop: 5000 of 12000 events")
        #expect(logged.last == "rebuilding the report rollups of app shop: 12000 of 12000 events")
        #expect(logged.count <= 11)
    }

    @Test func pruneRebuildsThePrunedAppsRollupsAndPrintsItsProgress() throws {
        let path = try database(events: 3_000)
        _ = try sqlite(path, "DELETE FROM rollup_backlog; DELETE FROM rollup_pages_backlog")
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(["prune", "--db", path, "--before", "2026-11-02"], io: io)
        #expect(code == .success)
        // 1,440 of the 3,000 minutes were on 2026-11-01.
        #expect(io.standardOutput.hasPrefix("pruned 1440 events"))
        #expect(io.standardError == "autotrack-collector prune: rebuilding the report rollups of app shop: 1560 of 1560 events\n")
        let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        defer { store.close() }
        #expect(try store.activityRollup(.all)?.days.map(\.events).reduce(0, +) == 1_560)
    }
}
