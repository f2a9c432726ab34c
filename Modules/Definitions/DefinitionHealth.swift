public import EventStore
public import KVCConfig
import PathDrift
import ViewIdentity

/// Whether a definition still counts in each version of its app (docs/studio.md "Definitions that
/// survive releases"): per app version its range holds, what it counts there, whether the newest
/// picture of its page in that version has an element it selects, and, where it broke, the drift
/// check's fix (docs/drift.md) measured against the pictures of the newest earlier version where
/// it was whole.
public struct DefinitionHealth: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        /// It counts in this version, or its picture shows an element it selects and no stored
        /// interaction says otherwise.
        case ok
        /// The version has interactions of the definition's kind on its page but none it counts,
        /// or the version's newest picture of its page has no element it selects, or every element
        /// its patterns match there is another view than the one they matched before (their ids
        /// differ) and the drift check finds that view elsewhere.
        case broken
        /// Neither interactions of its kind on its page nor a picture of its page in this version.
        case unseen
    }

    public struct Version: Sendable, Hashable {
        public var appVersion: String
        /// The stored events of this version the definition selects (whenever stored).
        public var count: Int
        /// The version's stored events of the definition's kind on its pages (any element).
        public var pageInteractions: Int
        /// Whether the version's newest picture of the definition's page has an element it selects:
        /// a node one of its patterns matches whose role fits its event (false without a picture).
        public var inPicture: Bool
        /// The picture looked at, nil when the version has none of the page.
        public var picture: Int64?
        public var status: Status
        /// For a broken version: the pattern the drift check suggests, not one the definition has.
        public var suggestion: String?

        public init(
            appVersion: String, count: Int, pageInteractions: Int, inPicture: Bool, picture: Int64?, status: Status, suggestion: String?
        ) {
            self.appVersion = appVersion
            self.count = count
            self.pageInteractions = pageInteractions
            self.inPicture = inPicture
            self.picture = picture
            self.status = status
            self.suggestion = suggestion
        }
    }

    public var rule: KVCRule
    /// In version order, oldest first (`AppVersion.ordered`).
    public var versions: [Version]

    public init(rule: KVCRule, versions: [Version]) {
        self.rule = rule
        self.versions = versions
    }

    /// The newest version the definition's range holds that has events or pictures, nil when none.
    public var newest: Version? { versions.last }
    /// True when the definition is broken in its app's newest version (`alert --definitions`).
    public var brokenInNewest: Bool { newest?.status == .broken }
}

extension ReportStore {
    /// `rule`'s health per app version over every stored event and the pictures of `pictures`
    /// (its app's, any time).
    public func definitionHealth(_ rule: KVCRule, pictures: any SnapshotStore) throws(StoreError) -> DefinitionHealth {
        var matcher = RuleEventMatcher(rule)
        let pages = Self.pages(of: rule)
        var counts: [String: Int] = [:]
        var onPage: [String: Int] = [:]
        var versions: Set<String> = []
        for row in try pathCounts(EventFilter(appKey: rule.appKey)) where row.type == matcher.events.type {
            guard let version = row.appVersion, matcher.events.holds(appVersion: version) else { continue }
            versions.insert(version)
            if matcher.selects(appKey: row.appKey, appVersion: version, type: row.type, path: row.path, title: row.title) {
                counts[version, default: 0] += row.count
            }
            if let root = try? ViewPath(canonical: row.path).elements.first?.name, pages.contains(where: { sameBytes($0, root) }) {
                onPage[version, default: 0] += row.count
            }
        }
        // The newest picture of each of the definition's pages, per version.
        var newestPictures: [String: [Int64]] = [:]
        var pagesSeen: [String: Set<String>] = [:]
        for s in try pictures.snapshots(appKey: rule.appKey, appVersion: nil)
        where pages.contains(where: { sameBytes($0, s.page) }) && rule.appVersion.holds(versionText: s.appVersion) {
            versions.insert(s.appVersion)
            if pagesSeen[s.appVersion, default: []].insert(s.page).inserted { newestPictures[s.appVersion, default: []].append(s.id) }
        }
        var out: [DefinitionHealth.Version] = []
        var baseline: [TreeFile] = []
        for version in AppVersion.ordered(versions) {
            let count = counts[version] ?? 0
            let interactions = onPage[version] ?? 0
            var trees: [TreeFile] = []
            for id in newestPictures[version] ?? [] {
                if let s = try pictures.snapshot(id: id), let tree = try? ViewTree(json: Array(s.tree.utf8)) {
                    trees.append(TreeFile(path: "snapshot \(id)", tree: tree))
                }
            }
            var inPicture = false
            var movedAway = false
            var suggestion: String?
            if !trees.isEmpty {
                let drift = PathDrift(trees: trees, baseline: baseline)
                let checks = rule.viewPaths.map { pattern in
                    var one = rule
                    one.viewPath = pattern
                    one.alsoViewPaths = []
                    return drift.check(one)
                }
                // An element it selects: a node one of its patterns matches whose role fits its event.
                inPicture = checks.contains { $0.matches > 0 }
                let known = Set(rule.viewPaths.map(\.text))
                suggestion = checks.lazy.filter { $0.status == .broken }.compactMap { $0.suggestion?.viewPath }.first { !known.contains($0) }
                // Every pattern matches other views than the baseline's (their ids say so) and the
                // view is found elsewhere: broken though something still matches.
                movedAway = checks.allSatisfy { $0.status == .broken } && suggestion != nil
            }
            let broken = (interactions > 0 && count == 0) || (!trees.isEmpty && !inPicture) || movedAway
            let status: DefinitionHealth.Status = broken ? .broken : (count > 0 || inPicture ? .ok : .unseen)
            if status == .ok, inPicture { baseline = trees }
            out.append(
                DefinitionHealth.Version(
                    appVersion: version, count: count, pageInteractions: interactions, inPicture: inPicture,
                    picture: newestPictures[version]?.first, status: status, suggestion: broken ? suggestion : nil))
        }
        return DefinitionHealth(rule: rule, versions: out)
    }

    /// The pages (root names) the rule's patterns start at, each once.
    static func pages(of rule: KVCRule) -> [String] {
        var out: [String] = []
        for p in rule.viewPaths { if let n = p.names.first, !out.contains(where: { sameBytes($0, n) }) { out.append(n) } }
        return out
    }
}
