public import Analytics
public import EventStore
public import KVCConfig

/// A definition's events per day or week (a trend, docs/reports.md "Definitions"), as one series
/// or one per app version or collected value (`props[keyName]`). The same selection as every
/// count by rule (`RuleEventMatcher`), so a day's figure is `report --rule`'s for that day.
public struct DefinitionTrend: Sendable, Hashable {
    /// What splits the events into series.
    public enum Breakdown: Sendable, Hashable {
        case appVersion
        /// The collected value under this key name (`props[keyName]`, as text).
        case value(keyName: String)
    }

    public struct Point: Sendable, Hashable {
        /// The period's first day (a Monday for weeks).
        public var start: UTCDay
        public var count: Int

        public init(start: UTCDay, count: Int) {
            self.start = start
            self.count = count
        }
    }

    public struct Series: Sendable, Hashable {
        /// The app version or value of this series; nil for the whole (no breakdown) or for the
        /// events without one.
        public var key: String?
        public var total: Int
        /// Every period from the first to the last of the trend, empty ones as 0.
        public var points: [Point]

        public init(key: String?, total: Int, points: [Point]) {
            self.key = key
            self.total = total
            self.points = points
        }
    }

    public var rule: KVCRule
    public var interval: RetentionPeriod
    /// Largest total first (ties by key, the series without a key last); at most the limit asked for.
    public var series: [Series]

    public init(rule: KVCRule, interval: RetentionPeriod, series: [Series]) {
        self.rule = rule
        self.interval = interval
        self.series = series
    }
}

extension ReportStore {
    /// `rule`'s events with a corrected time in [`since`, `until`) per `interval`, split by
    /// `breakdown` into at most `seriesLimit` series (the largest; the rest left out). The periods
    /// run from `since`'s (or the first event's) to `until`'s (or the last event's).
    public func definitionTrend(
        _ rule: KVCRule, interval: RetentionPeriod, breakdown: DefinitionTrend.Breakdown? = nil, since: Int64? = nil, until: Int64? = nil,
        seriesLimit: Int = 10
    ) throws(StoreError) -> DefinitionTrend {
        var matcher = RuleEventMatcher(rule)
        var valueKey: String?
        if case .value(let keyName) = breakdown { valueKey = keyName }
        // With a value breakdown the rows carry `props[keyName]`; content compares with it too.
        let query = PathDayQuery(
            filter: EventFilter(appKey: rule.appKey, since: since, until: until), types: [matcher.events.type],
            valueKey: valueKey ?? (rule.content == nil ? nil : rule.keyName))
        var counts: [String?: [Int64: Int]] = [:]
        var first = Int64.max, last = Int64.min
        for row in try pathDayCounts(query) {
            // The row's value is the rule's own only when the query read the rule's key name.
            let value = query.valueKey != nil && query.valueKey == rule.keyName ? row.value : nil
            guard matcher.selects(appKey: row.appKey, appVersion: row.appVersion, type: row.type, path: row.path, title: row.title, value: value)
            else { continue }
            let key: String? =
                switch breakdown {
                case nil: nil
                case .appVersion: row.appVersion
                case .value: row.value
                }
            let start = interval.start(of: UTCDay(number: row.day).startTime).number
            counts[key, default: [:]][start, default: 0] += row.count
            first = min(first, start)
            last = max(last, start)
        }
        if let since { first = min(first, interval.start(of: since).number) }
        if let until, until > (since ?? Int64.min) { last = max(last, interval.start(of: until - 1).number) }
        var periods: [Int64] = []
        if first <= last {
            var p = first
            while p <= last, periods.count < 10_000 {
                periods.append(p)
                p += interval.days
            }
        }
        let series = counts.map { key, byPeriod in
            DefinitionTrend.Series(
                key: key, total: byPeriod.values.reduce(0, +),
                points: periods.map { DefinitionTrend.Point(start: UTCDay(number: $0), count: byPeriod[$0] ?? 0) })
        }.sorted { a, b in
            if a.total != b.total { return a.total > b.total }
            switch (a.key, b.key) {
            case (let x?, let y?): return x < y
            case (.some, nil): return true
            default: return false
            }
        }
        var kept = Array(series.prefix(max(1, seriesLimit)))
        if kept.isEmpty, breakdown == nil {
            kept = [DefinitionTrend.Series(key: nil, total: 0, points: periods.map { DefinitionTrend.Point(start: UTCDay(number: $0), count: 0) })]
        }
        return DefinitionTrend(rule: rule, interval: interval, series: kept)
    }
}
