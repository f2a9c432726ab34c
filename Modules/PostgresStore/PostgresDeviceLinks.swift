import EventStore

/// Identity merge's table (`device_links`, migration 4), as SQLite's (docs/schema.md): one row per
/// app key, device and user seen together in an event, kept when events are pruned.
enum PostgresDeviceLinks {
    /// Migration 4: the table, filled from the events stored before it.
    static let migration = """
        CREATE TABLE device_links (
            app_key     text COLLATE "C" NOT NULL,
            device      text COLLATE "C" NOT NULL,
            user_id     text COLLATE "C" NOT NULL,
            PRIMARY KEY (app_key, device, user_id)
        );
        INSERT INTO device_links (app_key, device, user_id)
            SELECT DISTINCT app_key, device_id, user_id FROM events WHERE user_id IS NOT NULL AND device_id IS NOT NULL
            ON CONFLICT DO NOTHING;
        """

    static let name = "autotrack_device_links"
    static let sql = """
        INSERT INTO device_links (app_key, device, user_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
        ON CONFLICT DO NOTHING
        """

    /// Adds the links of `group`'s valid events (one statement, before the group's events are
    /// inserted: a group that fails after it leaves links a retry adds anyway). Rows go in one
    /// global order (bytes), so two collectors' statements never wait for each other in a cycle.
    /// Nothing to add, no round trip.
    static func record(_ group: [PostgresPendingBatch], on c: PostgresConnection) throws(PostgresError) {
        var links = Set<[String]>()
        for batch in group {
            for e in batch.events {
                if let user = e.user, let device = e.device { links.insert([batch.appKey, device, user]) }
            }
        }
        guard !links.isEmpty else { return }
        let rows = links.sorted { $0.lexicographicallyPrecedes($1) { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        var p = PostgresBinaryArrays(capacity: rows.count * 64)
        for column in 0..<3 { p.text(rows.lazy.map { $0[column] }) }
        try c.executePrepared(name, sql, p)
    }
}

extension DeviceLinks {
    /// The merged devices with their texts as stored (`PostgresText.encode`), for comparing with
    /// stored bytes.
    var stored: [DeviceLink] {
        let T = PostgresText.self
        return merged().map { DeviceLink(appKey: T.encode($0.appKey), device: T.encode($0.device), user: T.encode($0.user)) }
    }

    /// A `WITH` clause defining `merged_digests (dh, uh)`: per merged device, the aggregates' digest
    /// of its actor id (`PostgresAggregates.idRows`: app key and id) and of its user's, bound
    /// through `bind`. The aggregates keep actors as sent; a count joins this to merge them.
    func digestsClause(_ bind: (String) -> String) -> String {
        let links = stored
        let apps = bind(PostgresArrayLiteral.text(links.map(\.appKey)))
        let devices = bind(PostgresArrayLiteral.text(links.map(\.device)))
        let users = bind(PostgresArrayLiteral.text(links.map(\.user)))
        return """
            WITH merged_digests AS (
                SELECT \(PostgresAggregates.digest("a", "d")) AS dh, \(PostgresAggregates.digest("a", "u")) AS uh
                FROM unnest(\(apps)::text[], \(devices)::text[], \(users)::text[]) AS l(a, d, u)
            )
            """
    }
}

extension PostgresEventStore {
    /// The links of `device_links`.
    public func deviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks {
        let rows = try read(
            "SELECT app_key, device, user_id FROM device_links\(appKey == nil ? "" : " WHERE app_key = $1")",
            appKey.map { [PostgresText.encode($0)] } ?? [])
        return DeviceLinks(rows.map { DeviceLink(appKey: $0[0] ?? "", device: $0[1] ?? "", user: $0[2] ?? "") })
    }
}
