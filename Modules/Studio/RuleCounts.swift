public import EventModel
public import EventStore

/// What a rule counts over stored events (`POST /api/preview`, `GET /api/rules/{id}/counts`).
public struct RuleCounts: Sendable, Hashable {
    /// One UTC day's count.
    public struct Day: Sendable, Hashable {
        public var day: UTCDay
        public var count: Int
        public init(day: UTCDay, count: Int) {
            self.day = day
            self.count = count
        }
    }

    /// How many events carried one value of the rule's key path (or title).
    public struct Value: Sendable, Hashable {
        public var value: JSONValue
        public var count: Int
        public init(value: JSONValue, count: Int) {
            self.value = value
            self.count = count
        }
    }

    public var total: Int
    /// Days with events, in day order.
    public var days: [Day]
    /// Most frequent first.
    public var values: [Value]

    public init(total: Int, days: [Day], values: [Value]) {
        self.total = total
        self.days = days
        self.values = values
    }
}
