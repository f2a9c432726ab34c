import EventStore
import Foundation
import KVCConfig
import Matching

extension CollectorReport {
    /// Computes the report from `store` with a handful of aggregate queries.
    ///
    /// Rule coverage is the circle selection of the Matching module: the rule's path pattern
    /// as an anchored regular expression, tried against each distinct stored path once.
    public init(store: EventStore) throws(SQLiteError) {
        let events = try store.eventCounts()
        var byType: [String: Int] = [:]
        for e in events { byType[e.type, default: 0] += e.count }
        let types = byType.map { TypeCount(type: $0.key, count: $0.value) }
            .sorted { ($0.count, $1.type) > ($1.count, $0.type) }

        let paths = try store.pathCounts()
        var coverage: [RuleCoverage] = []
        for stored in try store.rules() {
            let selection = RuleJSON.rule(stored).map { CircleSelection(rule: $0) }
            let matcher = selection.flatMap { try? NSRegularExpression(pattern: $0.pathRegex) }
            func selected(_ path: String, _ title: String?) -> Bool {
                guard let matcher, let selection else { return false }
                if let wanted = selection.title, wanted != title { return false }
                let range = NSRange(path.startIndex..., in: path)
                return matcher.firstMatch(in: path, options: [], range: range) != nil
            }
            let covered = paths.filter { $0.appKey == stored.appKey && selected($0.path, $0.title) }
                .reduce(0) { $0 + $1.count }
            var values: [String: Int] = [:]
            if covered > 0 {
                for v in try store.propValueCounts(appKey: stored.appKey, key: stored.keyName) where selected(v.path, v.title) {
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
