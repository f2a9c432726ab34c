import EventStore

extension SQLiteEventStore {
    /// Deletes in chunks, each in its own transaction (`BEGIN IMMEDIATE` per chunk), so a collector
    /// writing to the same file waits at most one chunk. The pruned apps are put in the rollup
    /// backlog first; `rebuildRollups` then rebuilds their rollups from the events left (the
    /// `prune` command runs it; a collector does when it starts). Reports read the events meanwhile.
    public func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome {
        var outcome = PruneOutcome()
        var app = EventFilterSQL(EventFilter(appKey: appKey), table: "", timed: false)
        app.conditions.append("corrected_ts < ?")
        app.parameters.append(.int(before))
        let prunes = try read("SELECT EXISTS (SELECT 1 FROM events\(app.where()))", app.parameters).first?.first?.int == 1
        if prunes { try resetRollups(appKey: appKey) }
        let limit = Int64(max(1, chunk))
        for (table, time) in PruneOutcome.tables {
            while true {
                let app = appKey == nil ? "" : " AND app_key = ?"
                let parameters: [SQLiteValue] = [.int(before)] + (appKey.map { [SQLiteValue.text($0)] } ?? []) + [.int(limit)]
                let deleted = try locked { db throws(SQLiteError) -> Int in
                    try db.transaction { () throws(SQLiteError) -> Int in
                        let deleted = try db.run(
                            "DELETE FROM \(table) WHERE seq IN (SELECT seq FROM \(table) WHERE \(time) < ?\(app) LIMIT ?)",
                            parameters)
                        // SQLite gives the next event the highest seq left plus one: a watermark
                        // past it would hide that event from the rollups.
                        if table == "events" {
                            try db.run("UPDATE rollup_watermark SET seq = MIN(seq, (SELECT COALESCE(MAX(seq), 0) FROM events))")
                        }
                        return deleted
                    }
                }
                outcome.add(deleted, from: table)
                if deleted < limit { break }
            }
        }
        return outcome
    }
}
