public import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// The whole UTC days of the range from `rollup_events`, the whole hours of a day the range
    /// starts or ends inside from its hour columns (`RollupHours`), and from `events` only what
    /// lies between a bound and its nearest hour (when the rollups may answer: see
    /// `rollupFilter`), so a range in milliseconds reads at most two hours of events.
    /// A query with a `valueKey` reads `events` alone (the rollups keep no props).
    public func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        if query.valueKey != nil { return try pathDayRows(query, from: .events) }
        let pieces = PathDayPiece.cover(since: query.filter.since, until: query.filter.until)
        guard pieces.contains(where: \.readsRollups) else { return try pathDayRows(query, from: .events) }
        // Whether the rollups answer, asked once for the days the range touches.
        var aligned = query.filter
        aligned.since = query.filter.since.map { UTCDay.number(of: $0) * UTCDay.milliseconds }
        aligned.until = query.filter.until.map { t in (UTCDay.number(of: t - 1) + 1) * UTCDay.milliseconds }
        guard let rollup = try rollupFilter(aligned) else { return try pathDayRows(query, from: .events) }
        var counts: [PathDayCount: Int] = [:]
        for piece in pieces {
            var source = PathDaySource.events
            var edge = query
            switch piece {
            case .days(let since, let until):
                var days = rollup
                days.sinceDay = since
                days.untilDay = until
                source = .rollups(days, hours: nil)
            case .hours(let day, let hours):
                var one = rollup
                one.sinceDay = day
                one.untilDay = day + 1
                source = .rollups(one, hours: hours)
            case .events(let since, let until):
                edge.filter.since = since
                edge.filter.until = until
            }
            // A day's rows from its hours and from its edges add up to one row per key.
            for row in try pathDayRows(edge, from: source) {
                var key = row
                key.count = 0
                counts[key, default: 0] += row.count
            }
        }
        return counts.map { key, n in
            var row = key
            row.count = n
            return row
        }.sorted(by: PathDayCount.storeOrder)
    }

    /// Where `pathDayRows` reads.
    private enum PathDaySource {
        /// `events`, in the query's range.
        case events
        /// `rollup_events` in the filter's days, all of each day or the `hours` of the one day.
        case rollups(RollupFilter, hours: Range<Int>?)
    }

    /// `query`'s rows from `source`, sorted.
    private func pathDayRows(_ query: PathDayQuery, from source: PathDaySource) throws(StoreError) -> [PathDayCount] {
        var conditions: [SQLQuery]
        let day: String, title: String, count: String, table: String
        var having = ""
        switch source {
        case .events:
            conditions = try eventConditions(query.filter, nil)
            // The UTC day, rounded down also before 1970 (`UTCDay.number(of:)`).
            day = "(corrected_ts - (corrected_ts % \(UTCDay.milliseconds) + \(UTCDay.milliseconds)) % \(UTCDay.milliseconds)) / \(UTCDay.milliseconds)"
            (title, count, table) = (Self.titleSQL(props: "props"), "COUNT(*)", "events")
        case .rollups(let rollup, let hours):
            conditions = try eventConditions(query.filter, rollup)
            (day, title, table) = ("day", "title", "rollup_events")
            if let hours {
                count = "SUM(\(RollupHours.sum(hours)))"
                // A row of the day may have no event in these hours.
                having = " HAVING n > 0"
            } else {
                count = "SUM(events)"
            }
        }
        if !query.types.isEmpty { conditions.append("type IN \(list: query.types)") }
        if !query.paths.isEmpty { conditions.append("path IN \(list: query.paths)") }
        conditions.append("path IS NOT NULL")
        let value: SQLQuery = query.valueKey.map { Self.propValueSQL(props: "events.props", key: $0) } ?? "NULL"
        return try read(
            """
            SELECT app_key, app_version, \(raw: day) AS d, type, path, \(raw: title) AS t, \(value) AS v, \(raw: count) AS n
            FROM \(raw: table)\(SQLQuery.where(conditions))
            GROUP BY app_key, app_version, d, type, path, t, v\(raw: having) ORDER BY app_key, app_version, d, type, path, t, v
            """
        ) { r throws(SQLDecodingError) in
            PathDayCount(
                appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), day: try r.decode("d"), type: try r.decode("type"),
                path: try r.decode("path"), title: try r.decode("t"), value: try r.decode("v"), count: try r.decode("n"))
        }
    }

    /// `props[key]` of the events (`props` their JSON column) as text, as `PropValueCount.value`
    /// spells it, NULL where absent; json_each compares the key as a plain string.
    static func propValueSQL(props: String, key: String) -> SQLQuery {
        """
        (SELECT CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                            WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END
         FROM json_each(\(raw: props)) AS j WHERE j.key = \(key) LIMIT 1)
        """
    }
}

/// A part of a time range as `pathDayCounts` reads it: whole UTC days, whole hours of one day,
/// or the rest (less than an hour at each bound, or a range inside one or two hours).
enum PathDayPiece: Equatable {
    /// The days from `since` to before `until` (day numbers; nil: unbounded).
    case days(since: Int64?, until: Int64?)
    /// The hours of one day.
    case hours(day: Int64, Range<Int>)
    /// The events from `since` to before `until`, read from `events`.
    case events(since: Int64, until: Int64)

    var readsRollups: Bool {
        if case .events = self { return false }
        return true
    }

    /// The pieces of `[since, until)` (nil: unbounded), none for an empty range.
    static func cover(since: Int64?, until: Int64?) -> [PathDayPiece] {
        let day = UTCDay.milliseconds
        if let since, let until, since >= until { return [] }
        // The whole days: from the first midnight at or after `since` to the last at or before `until`.
        let first = since.map { UTCDay.isStart($0) ? $0 : (UTCDay.number(of: $0) + 1) * day }
        let last = until.map { UTCDay.number(of: $0) * day }
        if let since, let until, let first, let last, first > last {
            // Inside one day.
            return within(since, until)
        }
        var pieces: [PathDayPiece] = []
        if let since, let first, since < first { pieces += within(since, first) }
        if (first ?? .min) < (last ?? .max) {
            pieces.append(.days(since: first.map { $0 / day }, until: last.map { $0 / day }))
        }
        if let until, let last, last < until { pieces += within(last, until) }
        return pieces
    }

    /// The pieces of `[since, until)`, both inside one day (`until` at most its end).
    private static func within(_ since: Int64, _ until: Int64) -> [PathDayPiece] {
        let hour = RollupHours.milliseconds
        let day = UTCDay.number(of: since)
        let start = day * UTCDay.milliseconds
        // The whole hours: from the first hour at or after `since` to the last at or before `until`.
        let first = Int((since - start + hour - 1) / hour), last = Int((until - start) / hour)
        guard first < last else { return [.events(since: since, until: until)] }
        var pieces: [PathDayPiece] = []
        if start + Int64(first) * hour > since { pieces.append(.events(since: since, until: start + Int64(first) * hour)) }
        pieces.append(.hours(day: day, first..<last))
        if start + Int64(last) * hour < until { pieces.append(.events(since: start + Int64(last) * hour, until: until)) }
        return pieces
    }
}
