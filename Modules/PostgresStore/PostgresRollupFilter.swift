import EventStore
import StoreSQL

/// An `EventFilter` whose time bounds are whole UTC days (or absent), as conditions (`SQLQuery`
/// fragments, values bound where they appear) on the rollup tables and on the tail (the
/// events after the watermark).
struct PostgresRollupFilter {
    /// The filter, text in its stored form (`EventFilter.stored`).
    let filter: EventFilter
    /// The watermark of the snapshot the statement runs in (`PostgresEventStore.readRolledUp`).
    var watermark: Int64 = 0

    var appKey: String? { filter.appKey }
    var appVersion: String? { filter.appVersion }
    var since: Int64? { filter.since }
    var until: Int64? { filter.until }

    /// Nil when a bound is not a UTC midnight: the rollups count whole days only.
    init?(_ filter: EventFilter) {
        if let s = filter.since, !UTCDay.isStart(s) { return nil }
        if let u = filter.until, !UTCDay.isStart(u) { return nil }
        self.filter = filter.stored
    }

    /// Conditions on a rollup table: its app key, its version column (`app_version`, or `v`
    /// where no version is stored as ''), and the days in range (`firstDay` at or after the first
    /// day, `lastDay` before the day after the range; nil leaves the days out). `extra` joins them.
    func table(version: String = "v", firstDay: String? = "day", lastDay: String? = "day", _ extra: SQLQuery...) -> SQLQuery {
        var all: [SQLQuery] = []
        if let k = appKey { all.append("app_key = \(k)") }
        if let v = appVersion { all.append("\(raw: version) = \(v)") }
        if let s = since, let column = firstDay { all.append("\(raw: column) >= \(UTCDay.number(of: s))") }
        if let u = until, let column = lastDay { all.append("\(raw: column) < \(UTCDay.number(of: u))") }
        return .where(all + extra)
    }

    /// The tail: rows of `agg_source` after the watermark that the filter selects (only by app
    /// and version when not `timed`), as a subquery aliased `tail`.
    func tail(timed: Bool = true) -> SQLQuery {
        let conditions: [SQLQuery] = ["seq > \(watermark)"] + filter.conditions(timed: timed, dialect: .postgres)
        return "(SELECT * FROM agg_source\(SQLQuery.where(conditions))) AS tail"
    }

    /// `column` (a time in ms) in range.
    func times(_ column: String) -> [SQLQuery] {
        var all: [SQLQuery] = []
        if let s = since { all.append("\(raw: column) >= \(s)") }
        if let u = until { all.append("\(raw: column) < \(u)") }
        return all
    }

    /// The events' counts in range (`agg_events` plus the tail's `countRows`), as a subquery
    /// aliased `e`: what the count reports read in place of `events`.
    func counts() -> SQLQuery {
        """
        (SELECT app_key, app_version, day, type, name, page, path, title, events, dwell_count, dwell_sum
         FROM agg_events\(table(version: "app_version"))
         UNION ALL \(PostgresRollups.countRows(tail()))) AS e
        """
    }
}
