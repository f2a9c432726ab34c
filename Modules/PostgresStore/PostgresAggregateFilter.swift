import EventStore

/// An `EventFilter` whose time bounds are whole UTC days (or absent), as conditions on the
/// aggregate tables and on the tail (the events after the watermark), with one list of
/// numbered parameters for the whole statement.
struct PostgresAggregateFilter {
    /// Stored form (`PostgresText`).
    let appKey: String?
    let appVersion: String?
    let since: Int64?
    let until: Int64?
    /// The watermark of the snapshot the statement runs in (`PostgresEventStore.readAggregated`).
    var watermark: Int64 = 0
    private(set) var parameters: [String?] = []

    /// Nil when a bound is not a UTC midnight: the aggregates count whole days only.
    init?(_ filter: EventFilter) {
        if let s = filter.since, !UTCDay.isStart(s) { return nil }
        if let u = filter.until, !UTCDay.isStart(u) { return nil }
        appKey = PostgresText.encode(filter.appKey)
        appVersion = PostgresText.encode(filter.appVersion)
        since = filter.since
        until = filter.until
    }

    /// `$n` for `value`, appended to the parameters.
    mutating func bind(_ value: String?) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// Conditions on an aggregate table: its app key, its version column (`app_version`, or `v`
    /// where no version is stored as ''), and the days in range (`firstDay` at or after the first
    /// day, `lastDay` before the day after the range; nil leaves the days out). `extra` joins them.
    mutating func table(version: String = "v", firstDay: String? = "day", lastDay: String? = "day", _ extra: String...) -> String {
        var all: [String] = []
        if let k = appKey { all.append("app_key = \(bind(k))") }
        if let v = appVersion { all.append("\(version) = \(bind(v))") }
        if let s = since, let column = firstDay { all.append("\(column) >= \(bind(String(UTCDay.number(of: s))))::bigint") }
        if let u = until, let column = lastDay { all.append("\(column) < \(bind(String(UTCDay.number(of: u))))::bigint") }
        return Self.where(all + extra)
    }

    /// The tail: rows of `agg_source` after the watermark that the filter selects (only by app
    /// and version when not `timed`), as a subquery aliased `tail`.
    mutating func tail(timed: Bool = true) -> String {
        var all = ["seq > \(bind(String(watermark)))::bigint"]
        if let k = appKey { all.append("app_key = \(bind(k))") }
        if let v = appVersion { all.append("app_version = \(bind(v))") }
        if timed { all += times("t") }
        return "(SELECT * FROM agg_source\(Self.where(all))) AS tail"
    }

    /// `column` (a time in ms) in range.
    mutating func times(_ column: String) -> [String] {
        var all: [String] = []
        if let s = since { all.append("\(column) >= \(bind(String(s)))::bigint") }
        if let u = until { all.append("\(column) < \(bind(String(u)))::bigint") }
        return all
    }

    /// The events' counts in range (`agg_events` plus the tail's `countRows`), as a subquery
    /// aliased `e`: what the count reports read in place of `events`.
    mutating func counts() -> String {
        let columns = "app_key, app_version, day, type, name, page, path, title, events, dwell_count, dwell_sum"
        return """
            (SELECT \(columns) FROM agg_events\(table(version: "app_version"))
             UNION ALL \(PostgresAggregates.countRows(tail()))) AS e
            """
    }

    static func `where`(_ conditions: [String]) -> String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}
