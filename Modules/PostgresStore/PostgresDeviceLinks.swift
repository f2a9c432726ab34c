public import EventStore
import StoreSQL

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

    /// Migration 6: the devices that sent an event without a user, as SQLite's migration 9.
    static let anonymousMigration = """
        CREATE TABLE anonymous_devices (
            app_key     text COLLATE "C" NOT NULL,
            device      text COLLATE "C" NOT NULL,
            PRIMARY KEY (app_key, device)
        );
        INSERT INTO anonymous_devices (app_key, device)
            SELECT DISTINCT app_key, device_id FROM events WHERE user_id IS NULL AND device_id IS NOT NULL
            ON CONFLICT DO NOTHING;
        """

    static let name = "autotrack_device_links"
    /// Links (a user) and anonymous devices (a NULL user).
    static let sql = """
        WITH l AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) AS l(a, d, u)),
        links AS (INSERT INTO device_links (app_key, device, user_id) SELECT a, d, u FROM l WHERE u IS NOT NULL ON CONFLICT DO NOTHING)
        INSERT INTO anonymous_devices (app_key, device) SELECT a, d FROM l WHERE u IS NULL ON CONFLICT DO NOTHING
        """

    /// Adds the links of `group`'s valid events and their devices that sent an event without a
    /// user (one statement, before the group's events are
    /// inserted: a group that fails after it leaves links a retry adds anyway). Rows go in one
    /// global order (bytes), so two collectors' statements never wait for each other in a cycle.
    /// Nothing to add, no round trip.
    static func record(_ group: [PostgresPendingBatch], on c: PostgresConnection) throws(PostgresError) {
        var links = Set<[String?]>()
        for batch in group {
            for e in batch.events {
                if let device = e.device { links.insert([batch.appKey, device, e.user]) }
            }
        }
        guard !links.isEmpty else { return }
        let rows = links.sorted { $0.lexicographicallyPrecedes($1) { ($0 ?? "").utf8.lexicographicallyPrecedes(($1 ?? "").utf8) || ($0 == nil && $1 != nil) } }
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

    /// A `WITH` clause defining `merged_digests (dh, uh)`: per merged device, the rollups' digest
    /// of its actor id (`PostgresRollups.idRows`: app key and id) and of its user's. The
    /// rollups keep actors as sent; a count joins this to merge them.
    func digestsClause() -> SQLQuery {
        let links = stored
        return """
            WITH merged_digests AS (
                SELECT \(raw: PostgresRollups.digest("a", "d")) AS dh, \(raw: PostgresRollups.digest("a", "u")) AS uh
                FROM unnest(\(PostgresTextArray(links.map(\.appKey)))::text[], \(PostgresTextArray(links.map(\.device)))::text[],
                            \(PostgresTextArray(links.map(\.user)))::text[]) AS l(a, d, u)
            )
            """
    }
}

extension PostgresEventStore {
    /// The links of `device_links` whose device sent an event without a user (`anonymous_devices`).
    public func deviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks {
        let app: SQLQuery = appKey.map { " WHERE a.app_key = \(PostgresText.encode($0))" } ?? ""
        let links = try read(
            """
            SELECT l.app_key, l.device, l.user_id FROM anonymous_devices AS a
            JOIN device_links AS l ON l.app_key = a.app_key AND l.device = a.device\(app)
            """
        ) { r throws(SQLDecodingError) in DeviceLink(appKey: try r["app_key"], device: try r["device"], user: try r["user_id"]) }
        return DeviceLinks(links)
    }
}
