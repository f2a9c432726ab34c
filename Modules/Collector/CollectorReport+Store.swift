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

    /// Computes the report from `store` with a handful of aggregate queries.
    ///
    /// Rule coverage is the circle selection of the Matching module: the rule's path pattern
    /// as an anchored regular expression, tried against each distinct stored path once, over the
    /// events of the rule's app key whose app version its range holds.
    public init(store: EventStore) throws(SQLiteError) {
        let events = try store.eventCounts()
        var byType: [String: Int] = [:]
        for e in events { byType[e.type, default: 0] += e.count }
        let types = byType.map { TypeCount(type: $0.key, count: $0.value) }
            .sorted { ($0.count, $1.type) > ($1.count, $0.type) }

        let paths = try store.pathCounts()
        var coverage: [RuleCoverage] = []
        for stored in try store.rules() {
            let rule = RuleJSON.rule(stored)
            let selection = rule.map { CircleSelection(rule: $0) }
            let matcher = selection.flatMap { try? NSRegularExpression(pattern: $0.pathRegex) }
            let type = rule?.viewEvent.eventType.rawValue
            // The events of app versions the rule's range holds, as CONFIG serves rules: an event
            // whose HELLO named no (readable) version counts only for rules of every version.
            func holds(_ version: String?) -> Bool {
                guard let range = rule?.appVersion else { return false }
                guard let v = version.flatMap({ AppVersion($0) }) else { return range.comparators.isEmpty }
                return range.contains(v)
            }
            func selected(_ eventType: String, _ path: String, _ title: String?) -> Bool {
                guard let matcher, let selection, eventType == type else { return false }
                if let wanted = selection.title, wanted != title { return false }
                let range = NSRange(path.startIndex..., in: path)
                return matcher.firstMatch(in: path, options: [], range: range) != nil
            }
            let covered = paths.filter { $0.appKey == stored.appKey && holds($0.appVersion) && selected($0.type, $0.path, $0.title) }
                .reduce(0) { $0 + $1.count }
            var values: [String: Int] = [:]
            if covered > 0 {
                for v in try store.propValueCounts(appKey: stored.appKey, key: stored.keyName)
                where holds(v.appVersion) && selected(v.type, v.path, v.title) && Self.carries(v.rules, rule: stored.id) {
                    values[v.value, default: 0] += v.count
                }
            }
            coverage.append(
                RuleCoverage(
                    appKey: stored.appKey, id: stored.id, appVersion: stored.appVersion, viewEvent: stored.viewEvent,
                    viewPath: stored.viewPath, keyName: stored.keyName, content: stored.content, covered: covered,
                    values: values.map { ValueCount(value: $0.key, count: $0.value) }
                        .sorted { ($0.count, $1.value) > ($1.count, $0.value) }))
        }

        self.init(
            database: store.path, totals: try store.totals(), eventTypes: types, events: events,
            pages: try store.pageActivity(), rules: coverage, kvcErrors: try store.kvcErrorCounts(),
            rejected: try store.rejectedCounts())
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
