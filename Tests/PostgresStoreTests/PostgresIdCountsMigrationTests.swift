import EventModel
import EventStore
import Foundation
import Testing
import TestSupport

@testable import PostgresStore

/// Migration 7 fills `agg_id_counts` from the `agg_ids` a database already holds: what it writes
/// equals what the builder keeps when it adds the same ids chunk by chunk (docs/postgres.md).
@Suite struct PostgresIdCountsMigrationTests {
    @Test(.timeLimit(.minutes(3))) func theMigrationCountsWhatTheBuilderKeeps() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        try PostgresEventStore(uri: uri).close()
        // `.existing`: no builder thread; the rollups are brought up to date below.
        let store = try PostgresEventStore(uri: uri, options: StoreOptions(access: .existing))
        defer { store.close() }
        var traffic = ShopTraffic(users: 30, days: 3, seed: 11)
        var batches: [[JSONValue]] = []
        traffic.batches(total: 1_500, batchSize: 100) { batches.append($0) }
        for (i, events) in batches.enumerated() {
            // Two apps, and events with and without a version: both kinds of count rows.
            _ = try store.append(EventBatch(appKey: i % 3 == 0 ? "news" : "shop", appVersion: i % 2 == 0 ? nil : "1.\(i % 4)", events: events))
        }
        try store.rebuildRollups { _ in }
        let query = "SELECT day, kind, app_key, all_versions, v, n FROM agg_id_counts ORDER BY 1, 2, 3, 4, 5"
        let kept = try server.psql(uri: uri, query)
        #expect(kept.count > 20, "\(kept.count) count rows")
        #expect(kept.contains { $0.contains("|t|") } && kept.contains { $0.contains("|f|") }, "per version and across versions")
        _ = try server.psql(uri: uri, "DROP TABLE agg_id_counts")
        let connection = try PostgresConnection(uri: uri)
        try connection.executeScript(PostgresRollups.idCountsMigration)
        #expect(try server.psql(uri: uri, query) == kept)
    }
}
