import EventModel
import EventStore
import Foundation
import Synchronization
import SQLiteStore
import Testing
import TestSupport

@testable import PostgresStore

/// The PostgreSQL store against a real server: the protocol's guarantees, then what sharing one
/// database between collectors adds.
@Suite struct PostgresEventStoreTests {
    /// Every check on a fresh database of the shared server.
    @Test func conformsToTheStoreProtocol() throws {
        let server = try PostgresServer.shared()
        for check in StoreConformance.checks {
            do {
                try check.run(try PostgresEventStore(uri: try server.createDatabase()))
            } catch {
                Issue.record("\(check): \(error)")
            }
        }
    }

    @Test func snapshotsKeepTheirBoundInBytesPerAppAndInAll() throws {
        let server = try PostgresServer.shared()
        try StoreConformance.checkSnapshotBytes { options in try PostgresEventStore(uri: try server.createDatabase(), options: options) }
    }

    @Test func twoStoresOnOneDatabaseStoreEachEventOnceWhenBothReceiveItAtOnce() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let stores = try (0..<2).map { _ in try PostgresEventStore(uri: uri) }
        defer { stores.forEach { $0.close() } }
        // 4 threads per store, each sending every event once, in batches of 50: each event arrives 8 times.
        let events = (0..<2_000).map { i in TestEvents.json("e-\(i)") }
        let outcomes = OutcomeList()
        let threads = (0..<8).map { t in
            Thread {
                let store = stores[t % 2]
                // Different threads walk the batches in different orders, so groups overlap in every way.
                outcomes.send(events, inBatchesOf: 50, reversed: !t.isMultiple(of: 2), to: store)
            }
        }
        threads.forEach { $0.start() }
        try poll("8 senders", within: 120) { threads.allSatisfy(\.isFinished) }
        #expect(outcomes.failures.isEmpty)
        let sum = outcomes.all.reduce(BatchOutcome()) { BatchOutcome(stored: $0.stored + $1.stored, duplicates: $0.duplicates + $1.duplicates) }
        #expect(sum.stored == 2_000)
        #expect(sum.duplicates == 7 * 2_000)
        for store in stores {
            #expect(try store.totals(.all) == StoreTotals(events: 2_000, rejected: 0, duplicates: 14_000, batches: 320, apps: 1))
        }
        #expect(try server.psql(uri: uri, "SELECT count(*), count(DISTINCT id) FROM events") == ["2000|2000"])
    }

    @Test func rulesPublishedThroughOneStoreAreServedByAnotherWithTheSameEtag() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let a = try PostgresEventStore(uri: uri)
        let b = try PostgresEventStore(uri: uri)
        defer { a.close(); b.close() }
        let rules = [StoredRule(appKey: "shop", id: "r1", json: #"{"id":"r1"}"#), StoredRule(appKey: "shop", id: "r2", json: #"{"id":"r2"}"#)]
        #expect(try a.publish(rules, sampleRate: 0.5) == 2)
        let served = try #require(try b.ruleSet(appKey: "shop"))
        #expect(served.rules.map(\.id) == ["r1", "r2"])
        #expect(served.etag == StoredRuleSet.etag(ruleJSON: rules.map(\.json), sampleRate: 0.5))
        #expect(served.etag == (try a.ruleSet(appKey: "shop"))?.etag)
        #expect(try server.psql(uri: uri, "SELECT etag FROM rule_sets") == [served.etag])
    }

    /// The same events into SQLite and PostgreSQL give the same report rows, query by query.
    @Test func reportsReadTheSameNumbersAsTheSQLiteStore() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let pg = try PostgresEventStore(uri: uri)
        let file = Fixtures.temporaryDirectory("pg-vs-sqlite").appendingPathComponent("events.sqlite").path
        let sqlite = try SQLiteEventStore(path: file)
        defer { pg.close(); sqlite.close() }
        var generator = SeededGenerator(seed: 14)
        let pages = ["Home", "Detail", "Cart", "Ünïcode ✓"]
        let types = ["click", "page_enter", "page_leave", "list_item_click", "kvc_error", "value_changed"]
        for b in 0..<20 {
            var batch: [JSONValue] = []
            for i in 0..<50 {
                let n = b * 50 + i
                let type = types[Int.random(in: 0..<types.count, using: &generator)]
                let title: JSONValue = .string(pages[n % 3])
                let product: JSONValue = .string("p-\(n % 7)")
                var props = JSONObject([("title", title), ("productId", product), ("n", .int(Int64(n % 5)))])
                if type == "kvc_error" {
                    let rule: JSONValue = .string("r-\(n % 3)")
                    props = JSONObject([("ruleId", rule), ("keyPath", .string("product.sku")), ("missingKey", .string("sku"))])
                }
                if n % 11 == 0 { props["rules"] = .string("r-1,r-2") }
                var extra: [(String, JSONValue)] = [("props", .object(props)), ("page", .string(pages[n % pages.count]))]
                if n % 4 != 0 { extra.append(("path", .string("Home-UIView-UIButton&\(n % 6)"))) }
                if type == "page_leave", n % 3 != 0 { extra.append(("duration", .int(Int64(100 * (n % 9))))) }
                batch.append(TestEvents.json("id-\(n % 900)", type: type, name: "name-\(n % 13)", extra: extra))
            }
            let bad: JSONValue = .string("bad-\(b)")
            batch.append(.object(JSONObject([("id", bad), ("ts", .string("noon")), ("type", .string("click")), ("name", .string("n"))])))
            let e = EventBatch(appKey: b % 3 == 0 ? "news" : "shop", appVersion: b % 2 == 0 ? "1.0" : nil, events: batch)
            #expect(try pg.append(e) == (try sqlite.append(e)))
        }
        let filters = [EventFilter.all, EventFilter(appKey: "shop"), EventFilter(appKey: "news", appVersion: "1.0")]
        for f in filters {
            #expect(try pg.totals(f) == (try sqlite.totals(f)))
            #expect(try pg.eventCounts(f) == (try sqlite.eventCounts(f)))
            #expect(try pg.pageActivity(f) == (try sqlite.pageActivity(f)))
            #expect(try pg.pathCounts(f) == (try sqlite.pathCounts(f)))
            #expect(try pg.propValueCounts(appKey: "shop", key: "productId", f) == (try sqlite.propValueCounts(appKey: "shop", key: "productId", f)))
            #expect(try pg.propValueCounts(appKey: "shop", key: "n", f) == (try sqlite.propValueCounts(appKey: "shop", key: "n", f)))
            #expect(try pg.kvcErrorCounts(f) == (try sqlite.kvcErrorCounts(f)))
            #expect(try pg.rejectedCounts(f) == (try sqlite.rejectedCounts(f)))
        }
        #expect(try StoreConformance.stored(pg).map(\.event) == StoreConformance.stored(sqlite).map(\.event))
    }

    @Test func aReadOnlyStoreRefusesWritesAndAMissingSchema() throws {
        let uri = try PostgresServer.shared().createDatabase()
        do {
            _ = try PostgresEventStore(uri: uri, options: StoreOptions(access: .readOnly))
            Issue.record("a read-only store opened a database without Autotrack's tables")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("'autotrack-collector serve --db URI' creates them"))
        }
        try PostgresEventStore(uri: uri).close()
        let reader = try PostgresEventStore(uri: uri, options: StoreOptions(access: .readOnly))
        defer { reader.close() }
        #expect(try reader.schemaVersion() == PostgresEventStore.currentSchemaVersion)
        do {
            _ = try reader.append(EventBatch(appKey: "shop", events: [TestEvents.json("a")]))
            Issue.record("a read-only store stored a batch")
        } catch {
            #expect(error.code == .readOnly)
        }
    }

    @Test func theLocationHidesThePassword() {
        #expect(DatabaseURI.redacted("postgresql://u:secret@db.example:5432/a?sslmode=require") == "postgresql://u@db.example:5432/a?sslmode=require")
        #expect(DatabaseURI.redacted("postgres:///a?host=/run/postgresql&password=x&user=u") == "postgres:///a?host=/run/postgresql&user=u")
        #expect(PostgresEventStore.accepts("postgres://h/db") && PostgresEventStore.accepts("postgresql:///db?host=/tmp"))
        #expect(!PostgresEventStore.accepts("/var/lib/events.sqlite"))
    }

    /// libpq echoes a malformed token of the URI in its error: the password goes wherever it appears.
    @Test func theRedactionRemovesThePasswordWhereverItAppears() {
        let uri = "postgresql://u:s%40cret@db.example:5432/a?password=p2&sslmode=require"
        let libpq = "invalid percent-encoded token: \"s%40cret\"; the password s@cret; p2 — while running: parse \(uri)"
        let text = DatabaseURI.redacting(libpq, secretsOf: uri)
        #expect(text == "invalid percent-encoded token: \"***\"; the password ***; *** — while running: parse postgresql://u@db.example:5432/a?sslmode=require")
        #expect(DatabaseURI.redacting("/var/lib/a.sqlite: no such file", secretsOf: "/var/lib/a.sqlite") == "/var/lib/a.sqlite: no such file")
    }

    @Test func textWithNULAndTheEscapeCharacterRoundTrips() {
        for s in ["", "plain", "a\u{0}b", "\u{FFFF}", "\u{FFFF}0", "x\u{FFFF}\u{0}\u{FFFF}\u{FFFF}y", "é\u{0}"] {
            #expect(PostgresText.decode(PostgresText.encode(s)) == s)
            #expect(!PostgresText.encode(s).utf8.contains(0))
        }
        #expect(PostgresText.encode("a\u{0}") != PostgresText.encode("a\u{FFFF}"))
    }
}

/// Outcomes and failures collected from several threads.
final class OutcomeList: Sendable {
    private let items = Mutex<(outcomes: [BatchOutcome], failures: [String])>(([], []))
    func append(_ o: BatchOutcome) { items.withLock { $0.outcomes.append(o) } }
    func fail(_ s: String) { items.withLock { $0.failures.append(s) } }
    var all: [BatchOutcome] { items.withLock { $0.outcomes } }
    var failures: [String] { items.withLock { $0.failures } }

    /// Appends `events` to `store` in batches of `size` (last batch first when `reversed`), keeping each outcome or failure.
    func send(_ events: [JSONValue], inBatchesOf size: Int, reversed: Bool, to store: PostgresEventStore) {
        let batches = stride(from: 0, to: events.count, by: size).map { Array(events[$0..<min($0 + size, events.count)]) }
        for batch in reversed ? batches.reversed() : batches {
            do {
                append(try store.append(EventBatch(appKey: "shop", events: batch)))
            } catch {
                fail("\(error)")
            }
        }
    }
}
