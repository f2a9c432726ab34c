public import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// The whole UTC days of the range from `rollup_events` (when the rollups may answer: see
    /// `rollupFilter`), and the hours before the first and after the last whole day from
    /// `events`, so a range in milliseconds reads at most two days of events.
    /// A query with a `valueKey` reads `events` alone (the rollups keep no props).
    public func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        if query.valueKey != nil { return try pathDayRows(query, rollup: nil) }
        let filter = query.filter
        let dayMs = UTCDay.milliseconds
        // The whole days inside [since, until).
        let innerSince = filter.since.map { UTCDay.isStart($0) ? $0 : (UTCDay.number(of: $0) + 1) * dayMs }
        let innerUntil = filter.until.map { UTCDay.number(of: $0) * dayMs }
        if let s = innerSince, let u = innerUntil, s >= u { return try pathDayRows(query, rollup: nil) }
        var inner = filter
        inner.since = innerSince
        inner.until = innerUntil
        guard let rollup = try rollupFilter(inner) else { return try pathDayRows(query, rollup: nil) }
        var rows = try pathDayRows(query, rollup: rollup)
        var edge = query
        if let since = filter.since, let innerSince, since < innerSince {
            edge.filter.since = since
            edge.filter.until = innerSince
            rows += try pathDayRows(edge, rollup: nil)
        }
        if let until = filter.until, let innerUntil, innerUntil < until {
            edge.filter.since = innerUntil
            edge.filter.until = until
            rows += try pathDayRows(edge, rollup: nil)
        }
        return rows.sorted(by: PathDayCount.storeOrder)
    }

    /// `query`'s rows from `rollup_events` (`rollup` given) or from `events`, sorted.
    private func pathDayRows(_ query: PathDayQuery, rollup: RollupFilter?) throws(StoreError) -> [PathDayCount] {
        var conditions = try eventConditions(query.filter, rollup)
        if !query.types.isEmpty { conditions.append("type IN \(list: query.types)") }
        if !query.paths.isEmpty { conditions.append("path IN \(list: query.paths)") }
        conditions.append("path IS NOT NULL")
        // The UTC day, rounded down also before 1970 (`UTCDay.number(of:)`).
        let eventDay = "(corrected_ts - (corrected_ts % \(UTCDay.milliseconds) + \(UTCDay.milliseconds)) % \(UTCDay.milliseconds)) / \(UTCDay.milliseconds)"
        let (day, title, count, table) =
            rollup == nil ? (eventDay, Self.titleSQL(props: "props"), "COUNT(*)", "events") : ("day", "title", "SUM(events)", "rollup_events")
        // The value as propValueCounts spells it; json_each compares the key as a plain string.
        let value: SQLQuery =
            query.valueKey.map { key in
                """
                (SELECT CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                                    WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END
                 FROM json_each(events.props) AS j WHERE j.key = \(key) LIMIT 1)
                """
            } ?? "NULL"
        return try read(
            """
            SELECT app_key, app_version, \(raw: day) AS d, type, path, \(raw: title) AS t, \(value) AS v, \(raw: count) AS n
            FROM \(raw: table)\(SQLQuery.where(conditions))
            GROUP BY app_key, app_version, d, type, path, t, v ORDER BY app_key, app_version, d, type, path, t, v
            """
        ) { r throws(SQLDecodingError) in
            PathDayCount(
                appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), day: try r.decode("d"), type: try r.decode("type"),
                path: try r.decode("path"), title: try r.decode("t"), value: try r.decode("v"), count: try r.decode("n"))
        }
    }
}
