import Analytics
public import EventStore
public import KVCConfig

/// What a definition (a rule) counts over a time range (docs/reports.md "Definitions"): the
/// studio's preview and counts, `report --rule`'s header.
public struct DefinitionCounts: Sendable, Hashable {
    public struct Day: Sendable, Hashable {
        public var day: UTCDay
        public var count: Int

        public init(day: UTCDay, count: Int) {
            self.day = day
            self.count = count
        }
    }

    /// Where `values` come from.
    public enum ValueSource: String, Sendable, Hashable {
        /// `props.<keyName>` of the selected events (a rule that reads a value, where they carry one).
        case keyName
        /// `props.title` of the selected events (a rule that reads nothing, or whose events carry no value).
        case title
    }

    /// The selected events in the range.
    public var total: Int
    /// Per UTC day of the corrected time, days with events only, earliest first.
    public var days: [Day]
    /// Most frequent first (ties by value), at most the limit asked for.
    public var values: [ValueCount]
    public var valueSource: ValueSource

    public init(total: Int, days: [Day], values: [ValueCount], valueSource: ValueSource) {
        self.total = total
        self.days = days
        self.values = values
        self.valueSource = valueSource
    }
}

/// Stored interactions on one exact path (a heatmap's element).
public struct PathInteractions: Sendable, Hashable {
    public var path: String
    public var count: Int

    public init(path: String, count: Int) {
        self.path = path
        self.count = count
    }
}

extension ReportStore {
    /// What `rule` selects (`RuleEvents`) among the events stored with a corrected time in
    /// [`since`, `until`) (nil: unbounded), whenever the rule was made: the total, the count per
    /// UTC day, and the `valueLimit` most frequent values: the rule's `keyName` values where the
    /// selected events carry one (whichever rule read it), else their titles.
    public func definitionCounts(_ rule: KVCRule, since: Int64? = nil, until: Int64? = nil, valueLimit: Int = 20) throws(StoreError)
        -> DefinitionCounts
    {
        var matcher = RuleEventMatcher(rule)
        let filter = EventFilter(appKey: rule.appKey, since: since, until: until)
        let type = matcher.events.type
        var total = 0
        var days: [Int64: Int] = [:]
        var titles: [String: Int] = [:]
        // The collected value matters only to a rule with content and a key name.
        let valueKey = rule.content == nil ? nil : rule.keyName
        for row in try pathDayCounts(PathDayQuery(filter: filter, types: [type], valueKey: valueKey))
        where matcher.selects(appKey: row.appKey, appVersion: row.appVersion, type: row.type, path: row.path, title: row.title, value: row.value) {
            total += row.count
            days[row.day, default: 0] += row.count
            if let title = row.title { titles[title, default: 0] += row.count }
        }
        var values: [String: Int] = [:]
        if total > 0, let keyName = rule.keyName {
            for v in try propValueCounts(appKey: rule.appKey, key: keyName, filter)
            where matcher.selects(appKey: rule.appKey, appVersion: v.appVersion, type: v.type, path: v.path, title: v.title, value: v.value) {
                values[v.value, default: 0] += v.count
            }
        }
        let source: DefinitionCounts.ValueSource = values.isEmpty ? .title : .keyName
        return DefinitionCounts(
            total: total,
            days: days.sorted { $0.key < $1.key }.map { DefinitionCounts.Day(day: UTCDay(number: $0.key), count: $0.value) },
            values: Array(ValueCount.mostFrequent(values.isEmpty ? titles : values).prefix(max(0, valueLimit))), valueSource: source)
    }

    /// A heatmap: for each of `paths` (exact canonical paths) of app `appKey` (only version
    /// `appVersion`'s events when given), the stored events of `types` (wire types; empty: every
    /// type) on it with a corrected time in [`since`, `until`), whenever stored; paths with none
    /// left out, the others in the order given (a repeated path once).
    public func heatmap(
        appKey: String, appVersion: String? = nil, types: [String] = [], paths: [String], since: Int64? = nil, until: Int64? = nil
    ) throws(StoreError) -> [PathInteractions] {
        var unique: [String] = []
        var seen: Set<String> = []
        for p in paths where seen.insert(p).inserted { unique.append(p) }
        guard !unique.isEmpty else { return [] }
        let filter = EventFilter(appKey: appKey, appVersion: appVersion, since: since, until: until)
        var counts: [String: Int] = [:]
        for row in try pathDayCounts(PathDayQuery(filter: filter, types: types, paths: unique)) where seen.contains(row.path) {
            counts[row.path, default: 0] += row.count
        }
        return unique.compactMap { p in counts[p].map { PathInteractions(path: p, count: $0) } }
    }
}
