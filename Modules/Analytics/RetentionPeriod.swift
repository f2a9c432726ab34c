public import EventStore

/// The length of a retention period.
public enum RetentionPeriod: String, Sendable, Hashable, CaseIterable {
    /// A UTC day.
    case day
    /// A UTC week, Monday to Sunday.
    case week

    /// The first day of the period holding `time`.
    public func start(of time: Int64) -> UTCDay {
        let day = UTCDay(time: time)
        return self == .day ? day : day.weekStart
    }

    /// Days per period.
    public var days: Int64 { self == .day ? 1 : 7 }
}
