public import EventStore
import StoreSQL

/// Snapshots and circle mode (migrations 2 and 8; docs/schema.md). The PNG travels as a binary `bytea`
/// parameter and is read back with `encode(png, 'hex')`.
extension PostgresEventStore: SnapshotStore {
    public func storeSnapshot(_ snapshot: Snapshot) throws(StoreError) -> Int64 {
        let T = PostgresText.self
        let kept = snapshotBytes
        let appKey = T.encode(snapshot.appKey), appVersion = T.encode(snapshot.appVersion), page = T.encode(snapshot.page)
        return try withConnection { c throws(PostgresError) -> Int64 in
            try c.transaction { () throws(PostgresError) -> Int64 in
                let inserted = try c.execute(
                    """
                    INSERT INTO snapshots (app_key, app_version, page, captured_at, received_at, width, height, png, tree, device)
                    VALUES (\(appKey), \(appVersion), \(page), \(snapshot.capturedAt), \(snapshot.receivedAt), \(snapshot.width),
                            \(snapshot.height), \(SQLValue.blob(snapshot.png)), \(T.encode(snapshot.tree)), \(T.encode(snapshot.device)))
                    RETURNING seq
                    """
                ).decode { r throws(SQLDecodingError) in try r["seq", as: Int64.self] }
                guard let id = inserted.first else {
                    throw PostgresError(code: .statement, message: "INSERT INTO snapshots returned no seq")
                }
                // The kept history: the newest `keptPerPage` of this page, by the order they arrived.
                try c.execute(
                    """
                    DELETE FROM snapshots WHERE seq IN (
                        SELECT seq FROM snapshots WHERE app_key = \(appKey) AND app_version = \(appVersion) AND page = \(page)
                        ORDER BY seq DESC OFFSET \(Snapshot.keptPerPage))
                    """)
                // The bytes kept, per app and in all: the newest whose running total fits stay.
                for (scope, limit) in [(SQLQuery("WHERE app_key = \(appKey)"), kept.perApp), ("", kept.inAll)] {
                    try c.execute(
                        """
                        DELETE FROM snapshots WHERE seq IN (
                            SELECT seq FROM (
                                SELECT seq, SUM(octet_length(png) + octet_length(tree)) OVER (ORDER BY seq DESC) AS kept FROM snapshots \(scope)
                            ) AS sized
                            WHERE kept > \(limit) AND seq <> \(id))
                        """)
                }
                return id
            }
        }
    }

    public func snapshots(appKey: String?, appVersion: String?) throws(StoreError) -> [SnapshotSummary] {
        var conditions: [SQLQuery] = []
        if let appKey { conditions.append("app_key = \(PostgresText.encode(appKey))") }
        if let appVersion { conditions.append("app_version = \(PostgresText.encode(appVersion))") }
        return try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, width, height, received_at, device
            FROM snapshots\(SQLQuery.where(conditions)) ORDER BY seq DESC
            """
        ) { r throws(SQLDecodingError) in
            SnapshotSummary(
                id: try r["seq"], appKey: try r["app_key"], appVersion: try r["app_version"], page: try r["page"],
                capturedAt: try r["captured_at"], width: try r["width"], height: try r["height"], receivedAt: try r["received_at"],
                device: try r["device"])
        }
    }

    public func snapshot(id: Int64) throws(StoreError) -> Snapshot? {
        try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, received_at, width, height, encode(png, 'hex') AS png_hex, tree, device
            FROM snapshots WHERE seq = \(id)
            """
        ) { r throws(SQLDecodingError) in
            Snapshot(
                id: try r["seq"], appKey: try r["app_key"], appVersion: try r["app_version"], page: try r["page"],
                capturedAt: try r["captured_at"], receivedAt: try r["received_at"], width: try r["width"], height: try r["height"],
                png: PostgresHex.decode(try r["png_hex"]) ?? [], tree: try r["tree"], device: try r["device"])
        }.first
    }

    public func setCircleMode(appKey: String, until: Int64?) throws(StoreError) {
        let key = PostgresText.encode(appKey)
        try withConnection { c throws(PostgresError) in
            if let until, until > Self.nowMilliseconds() {
                try c.execute(
                    """
                    INSERT INTO circle_modes (app_key, until) VALUES (\(key), \(until))
                    ON CONFLICT (app_key) DO UPDATE SET until = excluded.until
                    """)
            } else {
                try c.execute("DELETE FROM circle_modes WHERE app_key = \(key)")
            }
        }
    }

    public func circleModes() throws(StoreError) -> [String: Int64] {
        var modes: [String: Int64] = [:]
        let rows = try read("SELECT app_key, until FROM circle_modes WHERE until > \(Self.nowMilliseconds())") {
            r throws(SQLDecodingError) in (key: try r["app_key", as: String.self], until: try r["until", as: Int64.self])
        }
        for r in rows { modes[r.key] = r.until }
        return modes
    }

    public func pageNames(appKey: String) throws(StoreError) -> [String: String] {
        let rows = try read("SELECT page, name FROM page_names WHERE app_key = \(PostgresText.encode(appKey))") { r throws(SQLDecodingError) in
            (page: try r["page", as: String.self], name: try r["name", as: String.self])
        }
        return Dictionary(rows.map { ($0.page, $0.name) }, uniquingKeysWith: { a, _ in a })
    }

    public func setPageName(appKey: String, page: String, name: String?) throws(StoreError) {
        let T = PostgresText.self
        let key = T.encode(appKey), root = T.encode(page)
        try withConnection { c throws(PostgresError) in
            if let name {
                try c.execute(
                    """
                    INSERT INTO page_names (app_key, page, name) VALUES (\(key), \(root), \(T.encode(name)))
                    ON CONFLICT (app_key, page) DO UPDATE SET name = excluded.name
                    """)
            } else {
                try c.execute("DELETE FROM page_names WHERE app_key = \(key) AND page = \(root)")
            }
        }
    }
}
