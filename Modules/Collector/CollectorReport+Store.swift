import Analytics
import EventModel
public import EventStore
import Foundation
import KVCConfig
import Definitions

extension CollectorReport {
    /// True when the tracker's `props.rules` (comma-joined ids) lists `rule`, or is absent
    /// (an event from a client that does not say which rule read its value).
    static func carries(_ rules: String?, rule: String) -> Bool {
        guard let rules else { return true }
        return rules.split(separator: ",").contains { $0 == rule }
    }

    /// Computes the report from `store` over the events `filter` selects, with a handful of
    /// rollup queries.
    ///
    /// Rule coverage counts the events each rule selects (Definitions' `RuleEvents`: app key,
    /// version range, type, path pattern, content), each distinct stored path tried once.
    public init(store: any CollectorStore, filter: EventFilter = .all) throws(StoreError) {
        let events = try store.eventCounts(filter)
        var byType: [String: Int] = [:]
        for e in events { byType[e.type, default: 0] += e.count }
        let types = byType.map { TypeCount(type: $0.key, count: $0.value) }
            .sorted { ($0.count, $1.type) > ($1.count, $0.type) }

        let paths = try store.pathCounts(filter)
        var coverage: [RuleCoverage] = []
        for stored in try store.rules(appKey: filter.appKey) {
            guard let rule = stored.rule else { continue }  // Never for rules this build stored.
            // The events the rule selects (Definitions' RuleEvents, the one definition).
            var matcher = RuleEventMatcher(rule)
            // By path and title; a rule with content and a key name also selects the events whose
            // value is its content (counted below from the values, where their title is not).
            var covered = paths.filter {
                matcher.selects(appKey: $0.appKey, appVersion: $0.appVersion, type: $0.type, path: $0.path, title: $0.title)
            }.reduce(0) { $0 + $1.count }
            var values: [String: Int] = [:]
            if let keyName = rule.keyName, covered > 0 || rule.content != nil {
                for v in try store.propValueCounts(appKey: rule.appKey, key: keyName, filter)
                where matcher.selects(appKey: rule.appKey, appVersion: v.appVersion, type: v.type, path: v.path, title: v.title, value: v.value) {
                    if let content = rule.content, v.title != content { covered += v.count }
                    if Self.carries(v.rules, rule: rule.id) { values[v.value, default: 0] += v.count }
                }
            }
            coverage.append(
                RuleCoverage(
                    rule: rule, covered: covered,
                    values: ValueCount.mostFrequent(values)))
        }

        self.init(
            database: store.location, totals: try store.totals(filter), eventTypes: types, events: events,
            pages: try store.pageActivity(filter), rules: coverage, kvcErrors: try store.kvcErrorCounts(filter),
            rejected: try store.rejectedCounts(filter))
        self.filter = filter
        impressions = ImpressionFigures.figures(coverage: coverage, paths: paths)
        self.generatedAt = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        self.activity = try store.activity(filter)
    }
}
