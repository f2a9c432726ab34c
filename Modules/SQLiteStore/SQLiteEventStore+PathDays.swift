import EventStore

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
        var f = rollup?.sql(day: "day") ?? EventFilterSQL(query.filter, table: "")
        func list(_ column: String, _ values: [String]) {
            guard !values.isEmpty else { return }
            f.conditions.append("\(column) IN (\(Array(repeating: "?", count: values.count).joined(separator: ", ")))")
            f.parameters += values.map { .text($0) }
        }
        list("type", query.types)
        list("path", query.paths)
        // The UTC day, rounded down also before 1970 (`UTCDay.number(of:)`).
        let eventDay = "(corrected_ts - (corrected_ts % \(UTCDay.milliseconds) + \(UTCDay.milliseconds)) % \(UTCDay.milliseconds)) / \(UTCDay.milliseconds)"
        let (day, title, count) =
            rollup == nil ? (eventDay, Self.titleSQL(props: "props"), "COUNT(*)") : ("day", "title", "SUM(events)")
        // The value as propValueCounts spells it; json_each compares the key as a plain string.
        let value =
            query.valueKey == nil
            ? "NULL"
            : """
            (SELECT CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                                WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END
             FROM json_each(events.props) AS j WHERE j.key = ? LIMIT 1)
            """
        return try read(
            """
            SELECT app_key, app_version, \(day) AS d, type, path, \(title) AS t, \(value) AS v, \(count)
            FROM \(rollup == nil ? "events" : "rollup_events")\(f.where("path IS NOT NULL"))
            GROUP BY app_key, app_version, d, type, path, t, v ORDER BY app_key, app_version, d, type, path, t, v
            """, query.valueKey.map { [SQLiteValue.text($0)] + f.parameters } ?? f.parameters
        ).map {
            PathDayCount(
                appKey: $0[0].text ?? "", appVersion: $0[1].text, day: $0[2].int ?? 0, type: $0[3].text ?? "", path: $0[4].text ?? "",
                title: $0[5].text, value: $0[6].text, count: Int($0[7].int ?? 0))
        }
    }
}
