/// The times and durations an event may carry (docs/wire.md §3, "Times and numbers"): whole
/// milliseconds since the Unix epoch from 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z,
/// and durations from 0 to the length of that range. `TrackEvent(json:)` rejects an event
/// outside them, so every stored time and duration is one of these and a sum or difference of
/// two of them cannot overflow; rows stored before the check still may hold any integer, so
/// code that computes with stored numbers saturates (`Int64.addingSaturating`).
public enum EventTime {
    /// 1970-01-01T00:00:00.000Z.
    public static let earliest: Int64 = 0
    /// 9999-12-31T23:59:59.999Z: the last millisecond with a four-digit year.
    public static let latest: Int64 = 253_402_300_799_999
    /// Every valid event time.
    public static let range: ClosedRange<Int64> = earliest...latest
    /// The longest valid duration: no dwell can outlast the times there are.
    public static let longestDuration: Int64 = latest - earliest
    /// Every valid `duration`.
    public static let durations: ClosedRange<Int64> = 0...longestDuration
}

extension Int64 {
    /// `self + other`, or `Int64.max` / `Int64.min` where the sum would overflow.
    public func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self − other`, or `Int64.max` / `Int64.min` where the difference would overflow.
    public func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }
}
