public import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// Deletes in chunks (`Pruning`), each in its own transaction (`BEGIN IMMEDIATE` per chunk),
    /// so a collector writing to the same file waits at most one chunk. The pruned apps are put
    /// in the rollup backlog first; `rebuildRollups` then rebuilds their rollups from the events
    /// left (the `prune` command runs it; a collector does when it starts). Reports read the
    /// events meanwhile.
    ///
    /// The events before the cut are found through the zone map (`EventZones`), which is then
    /// kept right: zones emptied go, zones the cut went through shrink.
    public func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome {
        var pruning = Pruning(before: before, appKey: appKey, chunk: chunk)
        pruning.eventConditions = try zoned(EventFilter(appKey: appKey, until: before)).seqs.map { [EventZones.condition($0)] } ?? []
        if try readScalar(pruning.anyEvent(.sqlite), as: Bool.self) == true { try resetRollups(appKey: appKey) }
        let outcome = try pruning.run(.sqlite) { (table, statement) throws(StoreError) -> Int in
            try locked { db throws(SQLiteError) -> Int in
                try db.transaction { () throws(SQLiteError) -> Int in
                    let deleted = try db.run(statement)
                    // SQLite gives the next event the highest seq left plus one: a watermark
                    // (each rollups file's) past it would hide that event from the rollups.
                    if table == "events" {
                        for part in RollupPart.allCases {
                            try db.run("UPDATE \(raw: part.watermark) SET seq = MIN(seq, (SELECT COALESCE(MAX(seq), 0) FROM events))")
                        }
                        // A queued run may hold a seq a new event now gets: the workers read back.
                        for worker in rollupWorkers { worker.handoff.clear() }
                    }
                    return deleted
                }
            }
        }
        try locked { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in try EventZones.pruned(before: before, appKey: appKey, in: db) }
        }
        return outcome
    }
}
