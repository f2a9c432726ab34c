import EventStore

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
        let limit = max(1, chunk)
        for (table, time) in PruneOutcome.tables {
            while true {
                let app = appKey == nil ? "" : " AND app_key = $3"
                let parameters: [String?] = [String(before), String(limit)] + (appKey.map { [PostgresText.encode($0)] } ?? [])
                let rows = "SELECT seq FROM \(table) WHERE \(time) < $1::bigint\(app) LIMIT $2::int"
                // Events with their ids; the time bound again outside, so only the partitions before it are read.
                let sql =
                    table == "events"
                    ? """
                    WITH gone AS (DELETE FROM events WHERE seq IN (\(rows)) AND corrected_ts < $1::bigint RETURNING app_key, id),
                    ids AS (DELETE FROM event_ids AS i USING gone WHERE i.app_key = gone.app_key AND i.id = gone.id)
                    SELECT count(*) FROM gone
                    """
                    : "WITH gone AS (DELETE FROM \(table) WHERE seq IN (\(rows)) RETURNING 1) SELECT count(*) FROM gone"
                let deleted = try withConnection { c throws(PostgresError) in
                    try c.execute(sql, parameters).rows.first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
                }
                outcome.add(deleted, from: table)
                if deleted < limit { break }
            }
        }
        // The aggregates counted the deleted events: they start over from the first event left
        // (the builder, or `rebuildRollups`, adds them again; reports read the events meanwhile).
        if outcome.events > 0 { try withConnection { c throws(PostgresError) in try PostgresAggregates.reset(c) } }
        return outcome
    }
}
