public import EventStore

/// A prune (`CollectorStore.prune`) as statements, written once for both stores: the rows stored
/// before `before` (of one app, or of every app) are deleted table by table
/// (`PruneOutcome.tables`), at most `limit` per statement, each statement in a transaction of
/// its own, so a collector writing to the same database waits at most one chunk.
public struct Pruning: Sendable {
    /// Milliseconds since the epoch: rows whose time is before it go.
    public let before: Int64
    /// Only this app's rows, or every app's (nil).
    public let appKey: String?
    /// Rows per statement, at least 1.
    public let limit: Int
    /// More conditions on the events to go, which every event before the cut meets: SQLite's
    /// seq ranges from its zone map, so it reads those rows without scanning the table. None
    /// for PostgreSQL (its day partitions bound the reads).
    public var eventConditions: [SQLQuery] = []

    public init(before: Int64, appKey: String?, chunk: Int) {
        self.before = before
        self.appKey = appKey
        limit = max(1, chunk)
    }

    /// One row, `pruned`, true when some event would go.
    public func anyEvent(_ dialect: SQLDialect) -> SQLQuery {
        let filter = EventFilter(appKey: appKey).whereClause(timed: false, dialect: dialect, ["corrected_ts < \(before)"] + eventConditions)
        return "SELECT EXISTS (SELECT 1 FROM events\(filter)) AS pruned"
    }

    /// Deletes one chunk of `table`'s rows whose `time` is before the cut. For PostgreSQL the bound
    /// is repeated outside the chunk's subquery, so it reads only the day partitions before it;
    /// SQLite, given it, might walk the time index instead of looking the chunk's rows up by `seq`.
    public func deleteChunk(from table: String, time: String, _ dialect: SQLDialect) -> SQLQuery {
        // SQLite's events: `+`, as in `EventFilter.conditions`: the seq ranges lead, not the dedup index.
        let hint = dialect == .sqlite && table == "events" ? "+" : ""
        var app: SQLQuery = appKey.map { " AND \(raw: hint)app_key = \($0)" } ?? ""
        if table == "events" { for c in eventConditions { app.append(" AND " + c) } }
        let partitions: SQLQuery = dialect == .postgres ? " AND \(raw: time) < \(before)" : ""
        return """
            DELETE FROM \(raw: table) WHERE seq IN (SELECT seq FROM \(raw: table) WHERE \(raw: time) < \(before)\(app) LIMIT \(limit))\(partitions)
            """
    }

    /// Deletes every table's rows before the cut, a chunk at a time: `delete` runs one chunk's
    /// statement (`deleteChunk`, which the store may wrap) in a transaction of its own and
    /// returns how many rows it deleted; a table is done when a chunk deletes fewer than `limit`.
    /// The counts are added to `outcome` (what the store deleted otherwise before).
    public func run<E: Error>(
        _ dialect: SQLDialect, adding outcome: PruneOutcome = PruneOutcome(),
        _ delete: (_ table: String, _ statement: SQLQuery) throws(E) -> Int
    ) throws(E) -> PruneOutcome {
        var outcome = outcome
        for (table, time) in PruneOutcome.tables {
            while true {
                let deleted = try delete(table, deleteChunk(from: table, time: time, dialect))
                outcome.add(deleted, from: table)
                if deleted < limit { break }
            }
        }
        return outcome
    }
}
