import EventStore

extension SQLiteEventStore {
    /// Deletes in chunks, each in its own transaction (`BEGIN IMMEDIATE` per chunk), so a collector
    /// writing to the same file waits at most one chunk.
    public func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome {
        var outcome = PruneOutcome()
        let limit = Int64(max(1, chunk))
        for (table, time) in PruneOutcome.tables {
            while true {
                let app = appKey == nil ? "" : " AND app_key = ?"
                let parameters: [SQLiteValue] = [.int(before)] + (appKey.map { [SQLiteValue.text($0)] } ?? []) + [.int(limit)]
                let deleted = try locked { db throws(SQLiteError) -> Int in
                    try db.transaction { () throws(SQLiteError) -> Int in
                        try db.run(
                            "DELETE FROM \(table) WHERE seq IN (SELECT seq FROM \(table) WHERE \(time) < ?\(app) LIMIT ?)",
                            parameters)
                    }
                }
                outcome.add(deleted, from: table)
                if deleted < limit { break }
            }
        }
        return outcome
    }
}
