import EventStore

/// Snapshots and circle mode (migration 2; docs/schema.md). The PNG travels as bytea in hex
/// (`\x…`), the one bytea text form every server reads, and is read back with `encode(png, 'hex')`.
extension PostgresEventStore: SnapshotStore {
    public func storeSnapshot(_ snapshot: Snapshot) throws(StoreError) -> Int64 {
        let page = [snapshot.appKey, snapshot.appVersion, snapshot.page].map(PostgresText.encode)
        let row: [String?] =
            page + [
                String(snapshot.capturedAt), String(snapshot.receivedAt), String(snapshot.width), String(snapshot.height),
                "\\x" + PostgresHex.encode(snapshot.png), PostgresText.encode(snapshot.tree),
            ]
        return try withConnection { c throws(PostgresError) -> Int64 in
            try c.transaction { () throws(PostgresError) -> Int64 in
                let inserted = try c.execute(
                    """
                    INSERT INTO snapshots (app_key, app_version, page, captured_at, received_at, width, height, png, tree)
                    VALUES ($1, $2, $3, $4::bigint, $5::bigint, $6::int, $7::int, $8::bytea, $9) RETURNING seq
                    """, row)
                guard let id = (inserted.rows.first?.first ?? nil).flatMap({ Int64($0) }) else {
                    throw PostgresError(code: .statement, message: "INSERT INTO snapshots returned no seq")
                }
                // The kept history: the newest `keptPerPage` of this page, by the order they arrived.
                try c.execute(
                    """
                    DELETE FROM snapshots WHERE seq IN (
                        SELECT seq FROM snapshots WHERE app_key = $1 AND app_version = $2 AND page = $3
                        ORDER BY seq DESC OFFSET $4::int)
                    """, page + [String(Snapshot.keptPerPage)])
                return id
            }
        }
    }

    public func snapshots(appKey: String?, appVersion: String?) throws(StoreError) -> [SnapshotSummary] {
        var conditions: [String] = []
        var parameters: [String?] = []
        if let appKey {
            parameters.append(PostgresText.encode(appKey))
            conditions.append("app_key = $\(parameters.count)")
        }
        if let appVersion {
            parameters.append(PostgresText.encode(appVersion))
            conditions.append("app_version = $\(parameters.count)")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        return try read(
            "SELECT seq, app_key, app_version, page, captured_at, width, height FROM snapshots\(filter) ORDER BY seq DESC",
            parameters
        ).map { r in
            SnapshotSummary(
                id: Int64(r[0] ?? "") ?? 0, appKey: r[1] ?? "", appVersion: r[2] ?? "", page: r[3] ?? "",
                capturedAt: Int64(r[4] ?? "") ?? 0, width: Int(r[5] ?? "") ?? 0, height: Int(r[6] ?? "") ?? 0)
        }
    }

    public func snapshot(id: Int64) throws(StoreError) -> Snapshot? {
        try read(
            """
            SELECT seq, app_key, app_version, page, captured_at, received_at, width, height, encode(png, 'hex'), tree
            FROM snapshots WHERE seq = $1::bigint
            """, [String(id)]
        ).first.map { r in
            Snapshot(
                id: Int64(r[0] ?? "") ?? 0, appKey: r[1] ?? "", appVersion: r[2] ?? "", page: r[3] ?? "",
                capturedAt: Int64(r[4] ?? "") ?? 0, receivedAt: Int64(r[5] ?? "") ?? 0, width: Int(r[6] ?? "") ?? 0,
                height: Int(r[7] ?? "") ?? 0, png: PostgresHex.decode(r[8] ?? "") ?? [], tree: r[9] ?? "{}")
        }
    }

    public func setCircleMode(appKey: String, until: Int64?) throws(StoreError) {
        let key = PostgresText.encode(appKey)
        try withConnection { c throws(PostgresError) in
            if let until, until > Self.nowMilliseconds() {
                try c.execute(
                    """
                    INSERT INTO circle_modes (app_key, until) VALUES ($1, $2::bigint)
                    ON CONFLICT (app_key) DO UPDATE SET until = excluded.until
                    """, [key, String(until)])
            } else {
                try c.execute("DELETE FROM circle_modes WHERE app_key = $1", [key])
            }
        }
    }

    public func circleModes() throws(StoreError) -> [String: Int64] {
        var modes: [String: Int64] = [:]
        for r in try read("SELECT app_key, until FROM circle_modes WHERE until > $1::bigint", [String(Self.nowMilliseconds())]) {
            modes[r[0] ?? ""] = Int64(r[1] ?? "") ?? 0
        }
        return modes
    }
}
