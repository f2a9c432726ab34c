import Analytics
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Synchronization
import Testing
import TestSupport

@testable import PostgresStore

/// The rollup tables: reports read them plus the events after the watermark, and give what
/// the events give at every watermark; one collector builds them, another takes over.
@Suite struct PostgresRollupTests {
    /// Shop traffic stored in shuffled batches (late events land between earlier ones), some
    /// without an app version: at each watermark, from none to all, every report from the
    /// rollups equals the same report from the events (the scan, and the SQLite store).
    @Test(.timeLimit(.minutes(5))) func reportsFromTheRollupsEqualTheEventsAtEveryWatermark() throws {
        let uri = try PostgresServer.shared().createDatabase()
        try PostgresEventStore(uri: uri).close()
        // `.existing`: no builder thread; this test moves the watermark itself.
        let pg = try PostgresEventStore(uri: uri, options: StoreOptions(access: .existing))
        let sqlite = try SQLiteEventStore(path: Fixtures.temporaryDirectory("pg-rollups").appendingPathComponent("e.sqlite").path)
        defer { pg.close(); sqlite.close() }
        var traffic = ShopTraffic(users: 40, days: 4, seed: 7)
        var batches: [[JSONValue]] = []
        traffic.batches(total: 3_000, batchSize: 120) { batches.append($0) }
        // Events of signed-in users' devices without the user: identity merge counts them as the user's.
        batches.append((0..<40).map { n in
            TestEvents.json(
                "anonymous-\(n)", type: n % 2 == 0 ? "click" : "page_enter", name: "P\(n % 3)", ts: traffic.start + Int64(n) * 3_600_000,
                extra: [("device", .string("device-\(n % 4)")), ("page", .string("P\(n % 3)"))])
        })
        var generator = SeededGenerator(seed: 3)
        batches.shuffle(using: &generator)
        for (i, events) in batches.enumerated() {
            let batch = EventBatch(appKey: i % 4 == 0 ? "news" : "shop", appVersion: i % 3 == 0 ? nil : "1.0", events: events)
            #expect(try pg.append(batch) == (try sqlite.append(batch)))
        }
        let day = UTCDay.milliseconds
        let first = traffic.start
        let filters = [
            EventFilter.all, EventFilter(appKey: "shop"), EventFilter(appKey: "shop", appVersion: "1.0"),
            EventFilter(since: first + day, until: first + 3 * day), EventFilter(appKey: "shop", until: first + 2 * day),
            EventFilter(appKey: "news", since: first + day),
        ]
        let connection = try PostgresConnection(uri: uri)
        var steps = 0
        repeat {
            for f in filters {
                let rollup = try #require(try pg.activityRollup(f))
                #expect(ActivitySummary(rollup) == (try pg.scannedActivity(f)), "\(f) after \(steps) steps")
                #expect(try pg.totals(f) == (try sqlite.totals(f)))
                #expect(try pg.eventCounts(f) == (try sqlite.eventCounts(f)))
                let (a, b) = (try pg.pageActivity(f), try sqlite.pageActivity(f))
                #expect(a == b, "\(f) after \(steps) steps: \(a) \(b)")
                #expect(try pg.pathCounts(f) == (try sqlite.pathCounts(f)))
                let days = PathDayQuery(filter: f, types: ["click"], paths: [])
                #expect(try pg.pathDayCounts(days) == (try sqlite.pathDayCounts(days)))
            }
            steps += 1
        } while try PostgresRollups.buildStep(connection, chunk: 700) != nil && steps < 20
        #expect(steps > 3)
        #expect(try PostgresServer.shared().psql(uri: uri, "SELECT watermark = (SELECT max(seq) FROM events) FROM agg_state") == ["t"])
    }

    /// Right after an ACK the report counts the batch, whether or not the builder got to it.
    @Test(.timeLimit(.minutes(3))) func aReportCountsABatchRightAfterItsAck() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let store = try PostgresEventStore(uri: uri)
        defer { store.close() }
        for i in 0..<20 {
            let events = (0..<30).map { TestEvents.json("e-\(i)-\($0)", type: "page_enter", name: "P\($0 % 3)", extra: [("session", .string("s\(i)"))]) }
            _ = try store.append(EventBatch(appKey: "shop", events: events))
            #expect(try store.totals(.all).events == (i + 1) * 30)
            let counts = try store.eventCounts(.all)
            #expect(counts.reduce(0) { $0 + $1.count } == (i + 1) * 30)
            #expect(try store.activity(EventFilter(appKey: "shop")) == (try store.scannedActivity(EventFilter(appKey: "shop"))))
        }
    }

    /// `events` holds every acknowledged event at its `ACK`, for a person with `psql` (no read
    /// of the store's first), from several appending threads at once; the rollups follow.
    @Test(.timeLimit(.minutes(3))) func psqlCountsEveryAcknowledgedEventAtItsACK() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let store = try PostgresEventStore(uri: uri)
        defer { store.close() }
        let acknowledged = Mutex(0)
        let problems = ErrorList()
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for b in 0..<10 {
                let events = (0..<50).map { TestEvents.json("t\(t)-\(b)-\($0)", type: "click", name: "buy") }
                do {
                    let outcome = try store.append(EventBatch(appKey: "shop", events: events))
                    let after = acknowledged.withLock { n in
                        n += outcome.stored
                        return n
                    }
                    // Every event acknowledged so far, this batch's included, is in the table now.
                    let counted = Int(try server.psql(uri: uri, "SELECT count(*) FROM events").first ?? "") ?? -1
                    if counted < after { problems.append("psql counted \(counted) after \(after) acknowledged") }
                } catch {
                    problems.append("\(error)")
                }
            }
        }
        #expect(problems.all.isEmpty, "\(problems.all.prefix(3))")
        #expect(try server.psql(uri: uri, "SELECT count(*), count(DISTINCT id) FROM events") == ["2000|2000"])
    }

    /// Two collectors: one builds. When its session dies (backend terminated) or it stops (the
    /// collector exits), the lock frees and a builder takes over within seconds.
    @Test(.timeLimit(.minutes(3))) func anotherCollectorTakesOverTheBuildingWhenTheBuilderDies() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let stores = try (0..<2).map { _ in try PostgresEventStore(uri: uri) }
        defer { stores.forEach { $0.close() } }
        var next = 0
        func appendAndWaitForTheRollups() throws {
            let events = (0..<50).map { n in TestEvents.json("e-\(next)-\(n)") }
            next += 1
            _ = try stores[next % 2].append(EventBatch(appKey: "shop", events: events))
            try poll("the rollups to reach the last event", within: 20) {
                try server.psql(uri: uri, "SELECT watermark >= (SELECT max(seq) FROM events) FROM agg_state") == ["t"]
            }
        }
        func leader() throws -> Int {
            var found: Int?
            try poll("one builder to lead", within: 20) {
                let leading = stores.indices.filter { stores[$0].builder!.isLeading }
                found = leading.count == 1 ? leading[0] : nil
                return found != nil
            }
            return found!
        }
        try appendAndWaitForTheRollups()
        let first = try leader()
        // The builder's backend killed: the lock goes with its session.
        let lock = PostgresRollups.builderLock
        let killed = try server.psql(
            uri: uri,
            """
            SELECT count(pg_terminate_backend(pid)) FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND classid = \(lock >> 32) AND objid = \(lock & 0xFFFF_FFFF) AND objsubid = 1 AND granted
            """)
        #expect(killed == ["1"])
        try appendAndWaitForTheRollups()
        _ = try leader()
        // The leading collector stops building (as when its process exits): the other takes over.
        let before = try leader()
        stores[before].builder!.stop(grace: .seconds(10))
        try poll("the other collector to lead", within: 20) { stores[1 - before].builder!.isLeading }
        try appendAndWaitForTheRollups()
        #expect(try stores[1 - before].totals(.all).events == 150)
        _ = first
    }
}
