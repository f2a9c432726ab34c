import EventStore

/// Snapshots and circle mode (migration 6; docs/schema.md).
extension SQLiteEventStore: SnapshotStore {
    public func storeSnapshot(_ snapshot: Snapshot) throws(StoreError) -> Int64 {
        let page: [SQLiteValue] = [.text(snapshot.appKey), .text(snapshot.appVersion), .text(snapshot.page)]
        let row: [SQLiteValue] =
            page + [
                .int(snapshot.capturedAt), .int(snapshot.receivedAt), .int(Int64(snapshot.width)),
                .int(Int64(snapshot.height)), .blob(snapshot.png), .text(snapshot.tree),
            ]
        return try locked { db throws(SQLiteError) -> Int64 in
            try db.transaction { () throws(SQLiteError) -> Int64 in
                _ = try db.run(
                    """
                    INSERT INTO snapshots (app_key, app_version, page, captured_at, received_at, width, height, png, tree)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, row)
                let id = db.lastInsertedRowID
                // The kept history: the newest `keptPerPage` of this page, by the order they arrived.
                _ = try db.run(
                    """
                    DELETE FROM snapshots WHERE seq IN (
                        SELECT seq FROM snapshots WHERE app_key = ? AND app_version = ? AND page = ?
                        ORDER BY seq DESC LIMIT -1 OFFSET ?)
                    """, page + [.int(Int64(Snapshot.keptPerPage))])
                return id
            }
        }
    }

    public func snapshots(appKey: String?, appVersion: String?) throws(StoreError) -> [SnapshotSummary] {
        var conditions: [String] = []
        var parameters: [SQLiteValue] = []
        if let appKey {
            conditions.append("app_key = ?")
            parameters.append(.text(appKey))
        }
        if let appVersion {
            conditions.append("app_version = ?")
            parameters.append(.text(appVersion))
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try read(
            "SELECT seq, app_key, app_version, page, captured_at, width, height FROM snapshots\(filter) ORDER BY seq DESC",
            parameters
        ).map { r in
            SnapshotSummary(
                id: r[0].int ?? 0, appKey: r[1].text ?? "", appVersion: r[2].text ?? "", page: r[3].text ?? "",
                capturedAt: r[4].int ?? 0, width: Int(r[5].int ?? 0), height: Int(r[6].int ?? 0))
        }
    }

    public func snapshot(id: Int64) throws(StoreError) -> Snapshot? {
        try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, received_at, width, height, png, tree
            FROM snapshots WHERE seq = ?
            """, [.int(id)]
        ).first.map { r in
            Snapshot(
                id: r[0].int ?? 0, appKey: r[1].text ?? "", appVersion: r[2].text ?? "", page: r[3].text ?? "",
                capturedAt: r[4].int ?? 0, receivedAt: r[5].int ?? 0, width: Int(r[6].int ?? 0), height: Int(r[7].int ?? 0),
                png: r[8].blob ?? [], tree: r[9].text ?? "{}")
        }
    }

    public func setCircleMode(appKey: String, until: Int64?) throws(StoreError) {
        let on = until.map { $0 > Self.nowMilliseconds() } ?? false
        try locked { db throws(SQLiteError) in
            if let until, on {
                _ = try db.run("INSERT OR REPLACE INTO circle_modes (app_key, until) VALUES (?, ?)", [.text(appKey), .int(until)])
            } else {
                _ = try db.run("DELETE FROM circle_modes WHERE app_key = ?", [.text(appKey)])
            }
        }
    }

    public func circleModes() throws(StoreError) -> [String: Int64] {
        var modes: [String: Int64] = [:]
        for r in try read("SELECT app_key, until FROM circle_modes WHERE until > ?", [.int(Self.nowMilliseconds())]) {
            modes[r[0].text ?? ""] = r[1].int ?? 0
        }
        return modes
    }
}
