public import EventStore
import StoreSQL

extension PostgresEventStore {
    /// Without an app key, first drops every day partition that ends by `before`, one
    /// transaction each (its events' ids leave `event_ids` in it); then deletes the rest in
    /// chunks, one statement (one transaction) each, so collectors writing meanwhile wait at most
    /// one chunk: the events of the boundary day and of `events_other` (and, for one app key, of
    /// every day), with their ids; the time index `events_corrected_ts` finds the rows of one app.
    public func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome {
        var outcome = PruneOutcome()
        if appKey == nil {
            let partitions = try withConnection { c throws(PostgresError) in try PostgresDayPartitions.partitions(endingBy: before, on: c) }
            for p in partitions {
                outcome.add(try withConnection { c throws(PostgresError) in try PostgresDayPartitions.drop(p.name, on: c) }, from: "events")
            }
            self.partitions.forget(partitions.map(\.day))
        }
        // The rest in chunks (`Pruning`), each statement its own transaction; the events go with their ids.
        let pruning = Pruning(before: before, appKey: PostgresText.encode(appKey), chunk: chunk)
        outcome = try pruning.run(.postgres, adding: outcome) { (table, delete) throws(StoreError) -> Int in
            let counted: SQLQuery =
                table == "events"
                ? """
                WITH gone AS (\(delete) RETURNING app_key, id),
                ids AS (DELETE FROM event_ids AS i USING gone WHERE i.app_key = gone.app_key AND i.id = gone.id)
                SELECT count(*) AS n FROM gone
                """
                : "WITH gone AS (\(delete) RETURNING 1) SELECT count(*) AS n FROM gone"
            return try withConnection { c throws(PostgresError) in try c.execute(counted).first("n", as: Int.self) ?? 0 }
        }
        // The rollups counted the deleted events: they start over from the first event left
        // (the builder, or `rebuildRollups`, adds them again; reports read the events meanwhile).
        if outcome.events > 0 { try withConnection { c throws(PostgresError) in try PostgresRollups.reset(c) } }
        return outcome
    }
}
