import Analytics
import EventStore
import EventModel
import Studio
import Synchronization
import ViewIdentity

/// An in-memory back end for the studio's route tests: apps, pictures, circle modes, rule sets
/// and a list of stored events to count (`viewEvent` a view event's name, or a wire type such as
/// `kvc_error` for the records that are none). Its rule check is a small stand-in for the codec's.
final class FakeStudioBackend: StudioBackend {
    struct Interaction: Sendable {
        var appKey: String
        var appVersion: String
        var viewEvent: String
        var path: String
        var title: String?
        var time: Int64
        /// The values rules collected (`props[keyName]`).
        var values: [String: String] = [:]
    }

    struct State: Sendable {
        var apps: [StudioApp] = []
        var snapshots: [StudioSnapshot] = []
        var sets: [StudioRuleSet] = []
        var interactions: [Interaction] = []
        /// What `scrollDepth` answers per page (none scrolled on a page not listed).
        var scrollDepths: [String: ScrollDepth] = [:]
        var publishes = 0
        var pageNames: [String: [String: String]] = [:]
    }

    let state: Mutex<State>

    init(_ state: State = State()) { self.state = Mutex(state) }

    func apps() throws(StudioError) -> [StudioApp] { state.withLock { $0.apps } }

    func snapshots(appKey: String, appVersion: String?) throws(StudioError) -> [StudioSnapshotSummary] {
        state.withLock { s in
            s.snapshots.map(\.summary).filter { $0.appKey == appKey && (appVersion == nil || $0.appVersion == appVersion) }
                .sorted { $0.capturedAt > $1.capturedAt }
        }
    }

    func snapshot(id: Int64) throws(StudioError) -> StudioSnapshot? { state.withLock { $0.snapshots.first { $0.summary.id == id } } }

    func pageNames(appKey: String) throws(StudioError) -> [String: String] { state.withLock { $0.pageNames[appKey] ?? [:] } }

    func setPageName(appKey: String, page: String, name: String?) throws(StudioError) {
        state.withLock { $0.pageNames[appKey, default: [:]][page] = name }
    }

    func setCircleMode(appKey: String, until: Int64?) throws(StudioError) {
        state.withLock { s in
            if let i = s.apps.firstIndex(where: { $0.appKey == appKey }) { s.apps[i].circleModeUntil = until }
        }
    }

    func ruleSets() throws(StudioError) -> [StudioRuleSet] { state.withLock { $0.sets } }

    func checkRule(_ rule: JSONValue) throws(StudioError) -> JSONValue {
        for field in ["id", "appKey", "viewEvent", "viewPath"] where rule[field]?.stringValue?.isEmpty ?? true {
            throw StudioError(.badRequest, "rule: \(field) is missing")
        }
        guard (try? PathPattern(rule["viewPath"]?.stringValue ?? "")) != nil else { throw StudioError(.badRequest, "rule: bad viewPath") }
        return rule
    }

    func replaceRules(appKey: String, with rules: [JSONValue]) throws(StudioError) -> String {
        state.withLock { s in
            s.publishes += 1
            let etag = "etag-\(s.publishes)"
            s.sets.removeAll { $0.appKey == appKey }
            s.sets.append(StudioRuleSet(appKey: appKey, etag: etag, rules: rules))
            return etag
        }
    }

    /// The interactions `rule` selects in `range` (its `viewPath` or one of its `alsoViewPaths`).
    func selected(by rule: JSONValue, in range: StudioTimeRange) -> [Interaction] {
        let texts = [rule["viewPath"]?.stringValue ?? ""] + (rule["alsoViewPaths"]?.arrayValue ?? []).compactMap(\.stringValue)
        let patterns = texts.compactMap { try? PathPattern($0) }
        let app = rule["appKey"]?.stringValue, event = rule["viewEvent"]?.stringValue
        return state.withLock { $0.interactions }.filter { e in
            guard !patterns.isEmpty, e.appKey == app, e.viewEvent == event else { return false }
            // An exact pattern's text is the path it names (the fake's paths have no aliases).
            let exact = texts.contains(e.path)
            guard exact || texts.contains(where: { $0.contains("*") }), let path = try? ViewPath(canonical: e.path) else { return false }
            // Content is the title, or the value collected under the rule's keyName (as RuleEventMatcher).
            let content = rule["content"]?.stringValue
            let value = rule["keyName"]?.stringValue.flatMap { e.values[$0] }
            return e.appKey == rule["appKey"]?.stringValue && e.viewEvent == rule["viewEvent"]?.stringValue
                && (exact || patterns.contains(where: { $0.matches(path) }))
                && (content == nil || content == e.title || (value != nil && content == value))
                && (range.since.map { e.time >= $0 } ?? true) && (range.until.map { e.time < $0 } ?? true)
        }
    }

    func counts(rule: JSONValue, range: StudioTimeRange) throws(StudioError) -> RuleCounts {
        let selected = selected(by: rule, in: range)
        var byDay: [UTCDay: Int] = [:]
        var byTitle: [String: Int] = [:]
        let keyName = rule["keyName"]?.stringValue
        for e in selected {
            byDay[UTCDay(time: e.time), default: 0] += 1
            if let t = keyName.flatMap({ e.values[$0] }) ?? e.title { byTitle[t, default: 0] += 1 }
        }
        return RuleCounts(
            total: selected.count, days: byDay.sorted { $0.key < $1.key }.map { RuleCounts.Day(day: $0.key, count: $0.value) },
            values: byTitle.sorted { $0.value > $1.value }.map { RuleCounts.Value(value: .string($0.key), count: $0.value) })
    }

    func heatmap(appKey: String, appVersion: String?, viewEvents: [String], paths: [String], range: StudioTimeRange)
        throws(StudioError) -> [String: Int]
    {
        var counts: [String: Int] = [:]
        for e in state.withLock({ $0.interactions }) where e.appKey == appKey && paths.contains(e.path) && viewEvents.contains(e.viewEvent) {
            guard appVersion == nil || e.appVersion == appVersion, range.since.map({ e.time >= $0 }) ?? true,
                range.until.map({ e.time < $0 }) ?? true
            else { continue }
            counts[e.path, default: 0] += 1
        }
        return counts
    }

    /// Per version of the app's interactions: what the rule counts there; ok where it counts,
    /// unseen elsewhere (the fake keeps no picture check: `DefinitionHealth`'s tests use real stores).
    func health(rule: JSONValue) throws(StudioError) -> RuleHealth {
        var versions: [String] = []
        for e in state.withLock({ $0.interactions }) where e.appKey == rule["appKey"]?.stringValue && !versions.contains(e.appVersion) {
            versions.append(e.appVersion)
        }
        let selected = selected(by: rule, in: StudioTimeRange())
        return RuleHealth(
            versions: versions.sorted().map { v in
                let n = selected.filter { $0.appVersion == v }.count
                return RuleHealth.Version(appVersion: v, count: n, inPicture: false, status: n > 0 ? "ok" : "unseen", suggestion: nil, snapshot: nil)
            })
    }

    /// The fake keeps no page or scroll events: no visit, none scrolled.
    func scrollDepth(appKey: String, appVersion: String?, page: String, range: StudioTimeRange) throws(StudioError) -> ScrollDepth {
        state.withLock { $0.scrollDepths[page] }
            ?? ScrollDepth(visits: 0, scrolled: 0, reached: ScrollDepth.shares.map { ScrollDepth.Reached(share: $0, visits: 0) })
    }
}
