import EventStore

extension PostgresEventStore {
    /// Deletes in chunks, one statement (one transaction) each, so collectors writing meanwhile
    /// wait at most one chunk; the time index `events_corrected_ts` finds the rows of one app.
    public func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome {
        var outcome = PruneOutcome()
        let limit = max(1, chunk)
        for (table, time) in PruneOutcome.tables {
            while true {
                let app = appKey == nil ? "" : " AND app_key = $3"
                let parameters: [String?] = [String(before), String(limit)] + (appKey.map { [PostgresText.encode($0)] } ?? [])
                let deleted = try withConnection { c throws(PostgresError) in
                    try c.execute(
                        "DELETE FROM \(table) WHERE seq IN (SELECT seq FROM \(table) WHERE \(time) < $1::bigint\(app) LIMIT $2::int)",
                        parameters
                    ).affected
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
