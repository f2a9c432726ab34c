public import EventStore
import StoreSQL

/// Snapshots and circle mode (migrations 6 and 13; docs/schema.md).
extension SQLiteEventStore: SnapshotStore {
    public func storeSnapshot(_ snapshot: Snapshot) throws(StoreError) -> Int64 {
        let s = snapshot
        let kept = snapshotBytes
        return try locked { db throws(SQLiteError) -> Int64 in
            try db.transaction { () throws(SQLiteError) -> Int64 in
                try db.run(
                    """
                    INSERT INTO snapshots (app_key, app_version, page, captured_at, received_at, width, height, png, tree, device)
                    VALUES (\(s.appKey), \(s.appVersion), \(s.page), \(s.capturedAt), \(s.receivedAt), \(s.width), \(s.height),
                            \(s.png), \(s.tree), \(s.device))
                    """)
                let id = db.lastInsertedRowID
                // The kept history: the newest `keptPerPage` of this page, by the order they arrived.
                try db.run(
                    """
                    DELETE FROM snapshots WHERE seq IN (
                        SELECT seq FROM snapshots WHERE app_key = \(s.appKey) AND app_version = \(s.appVersion) AND page = \(s.page)
                        ORDER BY seq DESC LIMIT -1 OFFSET \(Snapshot.keptPerPage))
                    """)
                // The bytes kept, per app and in all: the newest whose running total fits stay.
                for (scope, limit) in [(SQLQuery("WHERE app_key = \(s.appKey)"), kept.perApp), ("", kept.inAll)] {
                    try db.run(
                        """
                        DELETE FROM snapshots WHERE seq IN (
                            SELECT seq FROM (
                                SELECT seq, SUM(length(png) + length(tree)) OVER (ORDER BY seq DESC) AS kept FROM snapshots \(scope))
                            WHERE kept > \(limit) AND seq <> \(id))
                        """)
                }
                return id
            }
        }
    }

    public func snapshots(appKey: String?, appVersion: String?) throws(StoreError) -> [SnapshotSummary] {
        var conditions: [SQLQuery] = []
        if let appKey { conditions.append("app_key = \(appKey)") }
        if let appVersion { conditions.append("app_version = \(appVersion)") }
        return try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, width, height, received_at, device
            FROM snapshots\(SQLQuery.where(conditions)) ORDER BY seq DESC
            """
        ) { r throws(SQLDecodingError) in
            SnapshotSummary(
                id: try r.decode("seq"), appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), page: try r.decode("page"),
                capturedAt: try r.decode("captured_at"), width: try r.decode("width"), height: try r.decode("height"),
                receivedAt: try r.decode("received_at"), device: try r.decode("device"))
        }
    }

    public func snapshot(id: Int64) throws(StoreError) -> Snapshot? {
        try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, received_at, width, height, png, tree, device
            FROM snapshots WHERE seq = \(id)
            """
        ) { r throws(SQLDecodingError) in
            Snapshot(
                id: try r.decode("seq"), appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), page: try r.decode("page"),
                capturedAt: try r.decode("captured_at"), receivedAt: try r.decode("received_at"), width: try r.decode("width"),
                height: try r.decode("height"), png: try r.decode("png"), tree: try r.decode("tree"), device: try r.decode("device"))
        }.first
    }

    public func setCircleMode(appKey: String, until: Int64?) throws(StoreError) {
        let on = until.map { $0 > Self.nowMilliseconds() } ?? false
        try locked { db throws(SQLiteError) in
            if let until, on {
                try db.run("INSERT OR REPLACE INTO circle_modes (app_key, until) VALUES (\(appKey), \(until))")
            } else {
                try db.run("DELETE FROM circle_modes WHERE app_key = \(appKey)")
            }
        }
    }

    public func circleModes() throws(StoreError) -> [String: Int64] {
        var modes: [String: Int64] = [:]
        let rows = try read("SELECT app_key, until FROM circle_modes WHERE until > \(Self.nowMilliseconds())") {
            r throws(SQLDecodingError) in (appKey: try r.decode("app_key", as: String.self), until: try r.decode("until", as: Int64.self))
        }
        for (appKey, until) in rows { modes[appKey] = until }
        return modes
    }

    public func pageNames(appKey: String) throws(StoreError) -> [String: String] {
        let rows = try read("SELECT page, name FROM page_names WHERE app_key = \(appKey)") { r throws(SQLDecodingError) in
            (page: try r.decode("page", as: String.self), name: try r.decode("name", as: String.self))
        }
        return Dictionary(rows.map { ($0.page, $0.name) }, uniquingKeysWith: { a, _ in a })
    }

    public func setPageName(appKey: String, page: String, name: String?) throws(StoreError) {
        try locked { db throws(SQLiteError) in
            if let name {
                try db.run("INSERT OR REPLACE INTO page_names (app_key, page, name) VALUES (\(appKey), \(page), \(name))")
            } else {
                try db.run("DELETE FROM page_names WHERE app_key = \(appKey) AND page = \(page)")
            }
        }
    }
}
