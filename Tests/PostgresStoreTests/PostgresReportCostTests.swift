import EventModel
import EventStore
import Foundation
import StoreSQL
import Testing
import TestSupport

@testable import PostgresStore

/// What keeps a report's statements cheap on PostgreSQL (docs/postgres.md "What a report
/// costs"): each holds its answers too.
@Suite struct PostgresReportCostTests {
    @Test func theDayOfATimeIsItsUTCDayForEveryBigint() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        let day = UTCDay.milliseconds
        let times: [Int64] = [
            .min, .min + 1, -day - 1, -day, -day + 1, -1, 0, 1, day - 1, day, day + 1, 1_764_547_200_123, .max - 1, .max,
        ]
        let rows = try c.execute(
            "SELECT v, \(PostgresRollups.day("v")) AS d FROM unnest($1::bigint[]) WITH ORDINALITY AS x(v, o) ORDER BY o",
            [PostgresArrayLiteral.integers(times)]
        ).rows
        #expect(rows.map { $0[1] } == times.map { String(UTCDay.number(of: $0)) })
    }

    @Test func theStoresSessionsNeverCompileStatements() throws {
        let store = try PostgresEventStore(uri: try PostgresServer.shared().createDatabase())
        defer { store.close() }
        let jit = try store.withConnection { c throws(PostgresError) in try c.execute("SHOW jit").first("jit", as: String.self) }
        #expect(jit == "off")
    }

    @Test func kvcErrorsHaveAPartialIndexOnEveryDay() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let store = try PostgresEventStore(uri: uri)
        defer { store.close() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let events: [JSONValue] = [
            TestEvents.json("k1", type: "kvc_error", ts: now), TestEvents.json("c1", ts: now),
            TestEvents.json("k2", type: "kvc_error", ts: now - 3 * UTCDay.milliseconds),
        ]
        #expect(try store.append(EventBatch(appKey: "shop", events: events)).stored == 3)
        // The parent's index, and one on each partition an event made (today's, three days ago).
        let partial = try server.psql(
            uri: uri,
            """
            SELECT count(*) FROM pg_indexes WHERE tablename LIKE 'events%' AND indexdef LIKE '%WHERE (type = ''kvc_error''::text)%'
            AND tablename IN (SELECT DISTINCT tableoid::regclass::text FROM events)
            """)
        #expect(partial == ["2"])
        #expect(try server.psql(uri: uri, "SELECT count(*) FROM pg_indexes WHERE indexname = 'events_kvc_errors'") == ["1"])
        #expect(try store.kvcErrorCounts(EventFilter(appKey: "shop")).map(\.count) == [2])
    }
}
