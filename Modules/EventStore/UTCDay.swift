/// Whole UTC days as numbers (days since 1970-01-01, negative before it): the unit of the rollup
/// tables, and of the analytics' days and weeks (`Analytics.CalendarDay`).
public enum UTCDay {
    public static let milliseconds: Int64 = 86_400_000

    /// The day holding `time` (ms since the epoch).
    public static func number(of time: Int64) -> Int64 {
        let q = time / milliseconds
        return time % milliseconds < 0 ? q - 1 : q
    }

    /// True when `time` is the first millisecond of a day.
    public static func isStart(_ time: Int64) -> Bool { time % milliseconds == 0 }
}
