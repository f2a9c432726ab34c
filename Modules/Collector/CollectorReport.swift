public import Analytics
public import EventStore
public import KVCConfig

/// Everything a report shows, computed once from a database and rendered by any `ReportRenderer`.
public struct CollectorReport: Sendable, Hashable {
    /// The database the report was computed from, as given.
    public var database: String
    public var totals: StoreTotals
    /// Stored events per type, most frequent first.
    public var eventTypes: [TypeCount]
    /// Stored events per type and name, most frequent first.
    public var events: [EventCount]
    public var pages: [PageActivity]
    /// One entry per published rule, by app key then publish order.
    public var rules: [RuleCoverage]
    /// One entry per published impression rule: impressions, clicks and click-through rate.
    public var impressions: [ImpressionFigures] = []
    public var kvcErrors: [KVCErrorCount]
    /// Rejected events per reason, most frequent first.
    public var rejected: [ReasonCount]
    /// The events the report covers.
    public var filter = EventFilter.all
    /// The rule whose events alone the report covers (`report --rule`), nil for all events.
    public var scope: KVCRule?
    /// When the report was computed, ms since the epoch.
    public var generatedAt: Int64 = 0
    /// The trend per day, dwell percentiles, next pages and rage clicks.
    public var activity = ActivitySummary()
    /// The funnel `report --step` asked for, if any.
    public var funnel: FunnelResult?
    /// The retention table `report --start --return` asked for, if any.
    public var retention: RetentionResult?

    public init(
        database: String, totals: StoreTotals, eventTypes: [TypeCount], events: [EventCount], pages: [PageActivity],
        rules: [RuleCoverage], kvcErrors: [KVCErrorCount], rejected: [ReasonCount]
    ) {
        self.database = database
        self.totals = totals
        self.eventTypes = eventTypes
        self.events = events
        self.pages = pages
        self.rules = rules
        self.kvcErrors = kvcErrors
        self.rejected = rejected
    }
}

/// How many stored events have one type.
public struct TypeCount: Sendable, Hashable {
    public var type: String
    public var count: Int

    public init(type: String, count: Int) {
        self.type = type
        self.count = count
    }
}

/// What one published rule covered: the events its circle selection picks and the values
/// those events carry under the rule's key name.
public struct RuleCoverage: Sendable, Hashable {
    public var rule: KVCRule
    /// Stored events of the rule's app and view event's type whose path the rule's pattern
    /// matches (and whose `props.title` equals `content`, when the rule has one).
    public var covered: Int
    /// Among the covered events, how many carry each value under `props[keyName]` (and list the
    /// rule in `props.rules`, where they have that prop), most frequent first.
    public var values: [ValueCount]

    public init(rule: KVCRule, covered: Int, values: [ValueCount]) {
        self.rule = rule
        self.covered = covered
        self.values = values
    }

    /// Covered events that carry a value: the rule's read rate is `valued / covered`.
    public var valued: Int { values.reduce(0) { $0 + $1.count } }
}
