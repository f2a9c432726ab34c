import EventStore

extension EventFilter {
    /// The filter as conditions on `events` (or the table aliased `table`): app key, version, and
    /// the corrected time in `[since, until)`. `timed`: false for tables without event times
    /// (`rejected`, `batches`), which are filtered by app key and version only.
    public func conditions(table: String = "", timed: Bool = true, dialect: SQLDialect) -> [SQLQuery] {
        let prefix = table.isEmpty ? "" : table + "."
        var all: [SQLQuery] = []
        if let appKey {
            // SQLite, without a time range: `+` keeps the planner from reading the app's rows
            // through an index led by `app_key` (the dedup key's), which visits the table one
            // random page per row instead of reading it in order. With a range the
            // app and time lead into the partial index `events_kvc_errors`; SQLite's other ranged
            // queries read seq ranges from the zone map (SQLiteStore's `ZonedFilter`, which asks
            // for the app's condition without the range, so with `+`).
            let ranged = timed && (since != nil || until != nil)
            let hint = dialect == .sqlite && !ranged ? "+" : ""
            all.append("\(raw: hint + prefix)app_key = \(appKey)")
        }
        if let appVersion { all.append("\(raw: prefix)app_version = \(appVersion)") }
        if timed, let since { all.append("\(raw: prefix)corrected_ts >= \(since)") }
        if timed, let until { all.append("\(raw: prefix)corrected_ts < \(until)") }
        return all
    }

    /// ` WHERE …` over the filter's conditions and `extra` after them, or nothing.
    public func whereClause(table: String = "", timed: Bool = true, dialect: SQLDialect, _ extra: SQLQuery...) -> SQLQuery {
        whereClause(table: table, timed: timed, dialect: dialect, extra)
    }

    /// ` WHERE …` over the filter's conditions and `extra` after them, or nothing.
    public func whereClause(table: String = "", timed: Bool = true, dialect: SQLDialect, _ extra: [SQLQuery]) -> SQLQuery {
        .where(conditions(table: table, timed: timed, dialect: dialect) + extra)
    }
}
