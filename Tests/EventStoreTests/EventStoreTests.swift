import EventModel
import EventStore
import SQLiteStore
import Foundation
import Synchronization
import Testing
import TestSupport

/// A fresh database path in its own temporary directory.
func temporaryDatabase(_ label: String = "store") -> String {
    Fixtures.temporaryDirectory("eventstore-\(label)").appendingPathComponent("test.sqlite").path
}

/// A valid event's wire form (TestSupport's one factory).
func event(_ id: String, type: String = "click", name: String = "n", extra: [(String, JSONValue)] = []) -> JSONValue {
    TestEvents.json(id, type: type, name: name, extra: extra)
}

@Suite struct EventStoreTests {
    @Test(arguments: StoreConformance.checks) func conformsToTheStoreProtocol(_ check: StoreCheck) throws {
        try check.run(try SQLiteEventStore(path: temporaryDatabase("conformance")))
    }

    @Test func snapshotsKeepTheirBoundInBytesPerAppAndInAll() throws {
        try StoreConformance.checkSnapshotBytes { options in try SQLiteEventStore(path: temporaryDatabase("snapshot-bytes"), options: options) }
    }

    @Test func storesABatchAndReadsItBack() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase())
        let outcome = try store.append(
            EventBatch(
                appKey: "shop", appVersion: "1.2.0", label: "1",
                events: [
                    event("a", extra: [("page", "HomeViewController"), ("props", ["productId": "p-1", "n": 3])]),
                    event("b", type: "page_leave", extra: [("duration", 1500)]),
                ]))
        #expect(outcome == BatchOutcome(stored: 2, duplicates: 0, rejected: 0))
        #expect(try store.totals(.all) == StoreTotals(events: 2, rejected: 0, duplicates: 0, batches: 1, apps: 1))
        #expect(try store.eventCounts(.all) == [EventCount(type: "click", name: "n", count: 1), EventCount(type: "page_leave", name: "n", count: 1)])
    }

    @Test func keepsRejectedEventsWithTheirReasonsAndStoresTheRest() throws {
        let path = temporaryDatabase()
        let store = try SQLiteEventStore(path: path)
        let bad1: JSONValue = ["id": "x", "ts": 1, "type": "tap", "name": "n"]
        let bad2: JSONValue = ["ts": 1, "type": "click", "name": "n"]
        let outcome = try store.append(EventBatch(appKey: "shop", events: [bad1, event("ok"), bad2, .int(7)]))
        #expect(outcome.stored == 1)
        #expect(outcome.rejected == 3)
        #expect(outcome.rejections == [#"type unknown event type "tap""#, "id is required", "an event must be a JSON object, found a number"])
        #expect(try store.rejectedCounts(.all).map(\.count) == [1, 1, 1])
        #expect(Set(try store.rejectedCounts(.all).map(\.reason)) == Set(outcome.rejections))
        // The raw JSON is kept, so nothing the client sent is lost.
        let rows = try sqlite(path, "SELECT raw FROM rejected ORDER BY seq")
        #expect(rows == [bad1.jsonText, bad2.jsonText, "7"])
    }

    @Test func aBatchIsCommittedWhenInsertReturns() throws {
        let path = temporaryDatabase()
        let writer = try SQLiteEventStore(path: path)
        _ = try writer.append(EventBatch(appKey: "shop", events: [event("a"), event("b")]))
        // A second connection sees the batch at once: it is committed, not pending in a transaction.
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
        #expect(try reader.totals(.all).events == 2)
        #expect(try sqlite(path, "SELECT COUNT(*) FROM events") == ["2"])
    }

    @Test func concurrentBatchesAreEachCountedExactlyOnce() throws {
        let store = try SQLiteEventStore(path: temporaryDatabase())
        let threads = 8, batches = 10, perBatch = 10
        let outcomes = Mutex<[BatchOutcome]>([])
        let errors = Mutex<[String]>([])
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                for b in 0..<batches {
                    // Even threads share ids with the thread after them: those are duplicates of each other.
                    let owner = t - t % 2
                    let events = (0..<perBatch).map { event("t\(owner)-b\(b)-e\($0)") } + [.int(0)]
                    do {
                        let o = try store.append(EventBatch(appKey: "shop", label: "\(t)-\(b)", events: events))
                        outcomes.withLock { $0.append(o) }
                    } catch {
                        errors.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(errors.withLock { $0 } == [])
        let all = outcomes.withLock { $0 }
        #expect(all.count == threads * batches)
        #expect(all.allSatisfy { $0.stored + $0.duplicates == perBatch && $0.rejected == 1 })
        let distinct = threads / 2 * batches * perBatch
        #expect(all.reduce(0) { $0 + $1.stored } == distinct)
        #expect(all.reduce(0) { $0 + $1.duplicates } == distinct)
        #expect(try store.totals(.all) == StoreTotals(events: distinct, rejected: threads * batches, duplicates: distinct, batches: threads * batches, apps: 1))
    }

    @Test func reopeningKeepsEventsRulesAndDedup() throws {
        let path = temporaryDatabase()
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.append(EventBatch(appKey: "shop", events: [event("a")]))
            try store.publish([rule("r1")], sampleRate: 1)
        }
        let again = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
        #expect(try again.totals(.all).events == 1)
        #expect(try again.rules().map(\.id) == ["r1"])
        #expect(try again.append(EventBatch(appKey: "shop", events: [event("a")])) == BatchOutcome(stored: 0, duplicates: 1, rejected: 0))
    }

    @Test func migratesAnEmptyDatabaseOnlyWhenCreatingAndUsesWAL() throws {
        let path = temporaryDatabase()
        // An existing but empty SQLite file (user_version 0) is refused unchanged by what opens an
        // existing database (prune), and migrated by what creates one (serve).
        _ = try sqlite(path, "PRAGMA user_version")
        #expect(throws: StoreError.self) { try SQLiteEventStore(path: path, options: StoreOptions(access: .existing)) }
        #expect(try sqlite(path, "PRAGMA user_version; SELECT count(*) FROM sqlite_master") == ["0", "0"])
        let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .create))
        #expect(try store.schemaVersion() == SQLiteEventStore.currentSchemaVersion)
        #expect(try sqlite(path, "PRAGMA journal_mode") == ["wal"])
        let tables = try sqlite(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(
            tables == [
                "anonymous_devices", "batches", "circle_modes", "device_links", "event_zones", "events", "ingest_applied", "page_names", "rejected", "rule_sets", "rules",
                "snapshots", "sqlite_sequence",
            ])
        // The rollup tables are in two files of their own beside it (schema 10, RollupFile.swift).
        #expect(
            try sqlite(path, "SELECT name FROM rollups.sqlite_master WHERE type = 'table' ORDER BY name") == [
                "rollup_backlog", "rollup_click_runs", "rollup_ids", "rollup_kind_events", "rollup_kinds", "rollup_sources",
                "rollup_views", "rollup_watermark",
            ])
        #expect(
            try sqlite(path, "SELECT name FROM rollup_pages.sqlite_master WHERE type = 'table' ORDER BY name") == [
                "rollup_actor_counts", "rollup_actors", "rollup_dwell_buckets", "rollup_dwell_day_buckets", "rollup_dwell_days",
                "rollup_events", "rollup_page_enters", "rollup_pages_backlog", "rollup_pages_watermark", "rollup_transitions",
                "rollup_view_pages",
            ])
    }

    @Test func refusesADatabaseFromANewerCollector() throws {
        let path = temporaryDatabase()
        _ = try sqlite(path, "PRAGMA user_version = 99")
        #expect(throws: StoreError.self) { try SQLiteEventStore(path: path) }
        do { _ = try SQLiteEventStore(path: path) } catch {
            #expect(error.description.contains("schema version 99"))
            #expect(error.description.contains("newer autotrack-collector"))
        }
    }

    @Test func existingModeDoesNotCreateAFile() throws {
        let path = temporaryDatabase()
        do {
            _ = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
            Issue.record("opened a database that does not exist")
        } catch {
            #expect(error.description.contains("no database at \(path)"))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFileThatIsNotADatabaseIsAnErrorThatSaysSo() throws {
        let path = temporaryDatabase()
        try Data("this is not sqlite, it is a text file that is long enough to have a header".utf8)
            .write(to: URL(fileURLWithPath: path))
        do {
            _ = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
            Issue.record("opened a text file as a database")
        } catch {
            #expect(error.code == .notAutotrack)
            #expect(error.description.contains("not an Autotrack database"))
        }
    }
}

func rule(_ id: String, appKey: String = "shop") -> StoredRule {
    StoredRule(appKey: appKey, id: id, json: #"{"id":"\#(id)"}"#)
}
