import Analytics
import EventModel
import EventStore
import Foundation
import KVCConfig
import Matching

extension CollectorReport {
    /// True when the tracker's `props.rules` (comma-joined ids) lists `rule`, or is absent
    /// (an event from a client that does not say which rule read its value).
    static func carries(_ rules: String?, rule: String) -> Bool {
        guard let rules else { return true }
        return rules.split(separator: ",").contains { $0 == rule }
    }

    /// Computes the report from `store` over the events `filter` selects, with a handful of
    /// aggregate queries.
    ///
    /// Rule coverage is the circle selection of the Matching module: the rule's path pattern
    /// as an anchored regular expression, tried against each distinct stored path once, over the
    /// events of the rule's app key whose app version its range holds.
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
            let selection = CircleSelection(rule: rule)
            let matcher = try? NSRegularExpression(pattern: selection.pathRegex)
            let type = rule.viewEvent.eventType.rawValue
            // The events of app versions the rule's range holds, as CONFIG serves rules: an event
            // whose HELLO named no (readable) version counts only for rules of every version.
            func holds(_ version: String?) -> Bool { rule.appVersion.holds(version.flatMap { AppVersion($0) }) }
            func selected(_ eventType: String, _ path: String, _ title: String?) -> Bool {
                guard let matcher, eventType == type else { return false }
                if let wanted = selection.title, wanted != title { return false }
                let range = NSRange(path.startIndex..., in: path)
                return matcher.firstMatch(in: path, options: [], range: range) != nil
            }
            let covered = paths.filter { $0.appKey == rule.appKey && holds($0.appVersion) && selected($0.type, $0.path, $0.title) }
                .reduce(0) { $0 + $1.count }
            var values: [String: Int] = [:]
            if covered > 0 {
                for v in try store.propValueCounts(appKey: rule.appKey, key: rule.keyName, filter)
                where holds(v.appVersion) && selected(v.type, v.path, v.title) && Self.carries(v.rules, rule: rule.id) {
                    values[v.value, default: 0] += v.count
                }
            }
            coverage.append(
                RuleCoverage(
                    rule: rule, covered: covered,
                    values: values.map { ValueCount(value: $0.key, count: $0.value) }
                        .sorted { ($0.count, $1.value) > ($1.count, $0.value) }))
        }

        self.init(
            database: store.location, totals: try store.totals(filter), eventTypes: types, events: events,
            pages: try store.pageActivity(filter), rules: coverage, kvcErrors: try store.kvcErrorCounts(filter),
            rejected: try store.rejectedCounts(filter))
        self.filter = filter
        self.generatedAt = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        self.activity = try store.activity(filter)
    }
}

extension ViewEvent {
    /// The wire type of the events a rule on this view event covers (as the hooks type them:
    /// a tap on a view is a `gesture`).
    var eventType: EventType {
        switch self {
        case .buttonClick: return .click
        case .listItemClick: return .listItemClick
        case .viewTap: return .gesture
        case .valueChanged: return .valueChanged
        case .pageEnter: return .pageEnter
        case .pageLeave: return .pageLeave
        case .scroll: return .scroll
        }
    }
}
