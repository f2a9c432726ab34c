public import Analytics
import Definitions
public import EventModel
public import EventStore
import KVCConfig
public import Studio
import Synchronization

/// The studio's back end over the collector's stores: pictures and circle mode from the
/// `SnapshotStore`, rules through the same publish as `rules publish` (KVCConfig's codec checks
/// them), counting through `Definitions` (`definitionCounts`, `heatmap`).
public final class CollectorStudioBackend: StudioBackend {
    let store: any CollectorStore
    let pictures: any SnapshotStore
    /// The app keys and versions seen in events, and the last event `seq` read for them: each
    /// `apps()` reads only the events stored since.
    private let catalog = Mutex<(lastSeq: Int64?, versions: [String: Set<String>])>((nil, [:]))

    /// How many events one `apps()` reads at most to bring the catalog up to date (the rest wait
    /// for the next call, so a first call on a large database stays bounded in time).
    static let catalogBatch = 50_000
    static let catalogBatchesPerCall = 20

    public init(store: any CollectorStore, pictures: any SnapshotStore) {
        self.store = store
        self.pictures = pictures
    }

    public func apps() throws(StudioError) -> [StudioApp] {
        var versions = try eventVersions()
        var pictureCounts: [String: Int] = [:]
        for s in try unavailable({ () throws(StoreError) in try pictures.snapshots(appKey: nil, appVersion: nil) }) {
            versions[s.appKey, default: []].insert(s.appVersion)
            pictureCounts[s.appKey, default: 0] += 1
        }
        let modes = try unavailable { () throws(StoreError) in try pictures.circleModes() }
        for key in modes.keys { versions[key, default: []].formUnion([]) }
        for set in try unavailable({ () throws(StoreError) in try store.ruleSets(appKey: nil) }) {
            versions[set.appKey, default: []].formUnion([])
        }
        return versions.keys.sorted().map { key in
            StudioApp(
                appKey: key, versions: Self.versionOrder(versions[key] ?? []), snapshots: pictureCounts[key] ?? 0,
                circleModeUntil: modes[key])
        }
    }

    /// Versions in version order (`AppVersion.ordered`).
    static func versionOrder(_ versions: Set<String>) -> [String] { AppVersion.ordered(versions) }

    private func eventVersions() throws(StudioError) -> [String: Set<String>] {
        var last = catalog.withLock { $0.lastSeq }
        var found: [String: Set<String>] = [:]
        for _ in 0..<Self.catalogBatchesPerCall {
            var read = 0
            try unavailable { () throws(StoreError) in
                try store.events(EventQuery(afterSeq: last, limit: Self.catalogBatch)) { e in
                    read += 1
                    last = e.seq
                    found[e.appKey, default: []].formUnion(e.appVersion.map { [$0] } ?? [])
                    return true
                }
            }
            if read < Self.catalogBatch { break }
        }
        return catalog.withLock { c in
            for (key, seen) in found { c.versions[key, default: []].formUnion(seen) }
            if let last, last > c.lastSeq ?? .min { c.lastSeq = last }
            return c.versions
        }
    }

    public func snapshots(appKey: String, appVersion: String?) throws(StudioError) -> [StudioSnapshotSummary] {
        try unavailable { () throws(StoreError) in try pictures.snapshots(appKey: appKey, appVersion: appVersion) }
    }

    public func snapshot(id: Int64) throws(StudioError) -> StudioSnapshot? {
        guard let s = try unavailable({ () throws(StoreError) in try pictures.snapshot(id: id) }) else { return nil }
        return StudioSnapshot(summary: s.summary, png: s.png, tree: s.tree)
    }

    public func setCircleMode(appKey: String, until: Int64?) throws(StudioError) {
        try unavailable { () throws(StoreError) in try pictures.setCircleMode(appKey: appKey, until: until) }
    }

    public func pageNames(appKey: String) throws(StudioError) -> [String: String] {
        try unavailable { () throws(StoreError) in try pictures.pageNames(appKey: appKey) }
    }

    public func setPageName(appKey: String, page: String, name: String?) throws(StudioError) {
        try unavailable { () throws(StoreError) in try pictures.setPageName(appKey: appKey, page: page, name: name) }
    }

    public func ruleSets() throws(StudioError) -> [StudioRuleSet] {
        try unavailable { () throws(StoreError) in try store.ruleSets(appKey: nil) }.map { set in
            StudioRuleSet(appKey: set.appKey, etag: set.etag, rules: set.rules.compactMap { try? JSONValue.parse($0.json) })
        }
    }

    public func checkRule(_ rule: JSONValue) throws(StudioError) -> JSONValue {
        try Self.rule(rule).json
    }

    /// The rule the codec reads from `json`; `badRequest` with its problems.
    static func rule(_ json: JSONValue) throws(StudioError) -> KVCRule {
        do throws(ConfigError) {
            return try KVCRule.rules(json: [json], source: "the rule")[0]
        } catch {
            throw StudioError(.badRequest, error.problems.map(\.description).joined(separator: "; "))
        }
    }

    public func replaceRules(appKey: String, with rules: [JSONValue]) throws(StudioError) -> String {
        var stored: [StoredRule] = []
        for json in rules {
            let rule = try Self.rule(json)
            guard rule.appKey == appKey else { throw StudioError(.badRequest, "rule \(rule.id) belongs to app \(rule.appKey), not \(appKey)") }
            stored.append(StoredRule(rule))
        }
        return try unavailable { () throws(StoreError) -> String in
            let sampleRate = try store.ruleSet(appKey: appKey)?.sampleRate ?? 1
            try store.publish(stored, sampleRate: sampleRate, appKeys: [appKey])
            return StoredRuleSet.etag(ruleJSON: stored.map(\.json), sampleRate: sampleRate)
        }
    }

    public func counts(rule: JSONValue, range: StudioTimeRange) throws(StudioError) -> RuleCounts {
        let rule = try Self.rule(rule)
        let counts = try unavailable { () throws(StoreError) in
            try store.definitionCounts(rule, since: range.since, until: range.until)
        }
        return RuleCounts(
            total: counts.total, days: counts.days.map { RuleCounts.Day(day: $0.day, count: $0.count) },
            values: counts.values.map { RuleCounts.Value(value: .string($0.value), count: $0.count) })
    }

    public func heatmap(appKey: String, appVersion: String?, viewEvents: [String], paths: [String], range: StudioTimeRange)
        throws(StudioError) -> [String: Int]
    {
        var types: [String] = []
        for name in viewEvents {
            guard let event = ViewEvent(rawValue: name) else { throw StudioError(.badRequest, "'\(name)' is not a view event") }
            types.append(event.eventType.rawValue)
        }
        // No view event would mean every type: a heatmap of nothing is empty instead.
        guard !types.isEmpty else { return [:] }
        let elements = try unavailable { () throws(StoreError) in
            try store.heatmap(appKey: appKey, appVersion: appVersion, types: types, paths: paths, since: range.since, until: range.until)
        }
        return Dictionary(elements.map { ($0.path, $0.count) }, uniquingKeysWith: +)
    }

    public func scrollDepth(appKey: String, appVersion: String?, page: String, range: StudioTimeRange) throws(StudioError)
        -> ScrollDepth
    {
        try unavailable { () throws(StoreError) in
            try store.scrollDepth(appKey: appKey, appVersion: appVersion, page: page, since: range.since, until: range.until)
        }
    }

    public func health(rule: JSONValue) throws(StudioError) -> RuleHealth {
        let rule = try Self.rule(rule)
        let health = try unavailable { () throws(StoreError) in try store.definitionHealth(rule, pictures: pictures) }
        return RuleHealth(
            versions: health.versions.map {
                RuleHealth.Version(
                    appVersion: $0.appVersion, count: $0.count, inPicture: $0.inPicture, status: $0.status.rawValue, suggestion: $0.suggestion,
                    snapshot: $0.picture)
            })
    }

    /// A store failure as the studio answers it: 503, try again.
    func unavailable<T>(_ body: () throws(StoreError) -> T) throws(StudioError) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            throw StudioError(.unavailable, "the store failed (\(error)); try again")
        }
    }
}
