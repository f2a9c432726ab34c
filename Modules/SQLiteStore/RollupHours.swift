import EventStore

/// The hours of `rollup_events` (rollups layout 5): beside each row's `events` of its UTC day,
/// its events in each hour of that day, in columns `h00` … `h23` (UTC, by the corrected time).
/// A range that starts or ends inside a day then reads its whole hours from the rollups and only
/// what lies between its bound and the nearest hour from `events` (`pathDayCounts`).
///
/// Columns, not rows: a row per hour would multiply the keys a chunk writes by the hours its
/// events span (a day or more under load), while 24 more integers in the same row cost the
/// worker a few additions per key it writes already.
enum RollupHours {
    static let milliseconds: Int64 = 3_600_000
    static let count = 24

    /// The column of hour `h` (0 to 23) of the day.
    static func column(_ h: Int) -> String { h < 10 ? "h0\(h)" : "h\(h)" }

    /// Every hour's column, in order.
    static let columns = (0..<count).map(column)

    /// The hour of the day (0 to 23) holding `time`, whose UTC day is `day`. Wrapping: the day's
    /// start may lie past 64 bits for a time near either end (a rebuild replays any stored
    /// integer), the difference never does.
    static func hour(of time: Int64, day: Int64) -> Int { Int((time &- day &* UTCDay.milliseconds) / milliseconds) }

    /// The sum of the columns of `hours` (within one day), as SQL.
    static func sum(_ hours: Range<Int>) -> String { hours.map(column).joined(separator: " + ") }

    /// The columns' definitions in `CREATE TABLE rollup_events`.
    static let definitions = columns.map { "\($0) INTEGER NOT NULL DEFAULT 0" }.joined(separator: ",\n    ")
}
