public import KVCConfig
import ViewIdentity

/// A place the new build might hold a rule's view: a pattern and how well its best node fits.
public struct DriftCandidate: Sendable, Hashable {
    /// The candidate node's path as a pattern, with the old pattern's wildcards kept.
    public var viewPath: String
    public var score: Double
    /// The signals that agreed for the best node of this pattern.
    public var signals: [DriftSignal]
    /// Whether an identity signal (id, title, content) applied and agreed.
    public var identityAgrees: Bool
    /// The tree file of that node.
    public var file: String
    /// The element names of `viewPath`.
    public var names: [String]
    /// Whether every `s:*` of the old pattern is still on a cell of section `s`.
    public var sectionsKept: Bool

    public init(
        viewPath: String, score: Double, signals: [DriftSignal], identityAgrees: Bool, file: String, names: [String] = [],
        sectionsKept: Bool = true
    ) {
        self.viewPath = viewPath
        self.score = score
        self.signals = signals
        self.identityAgrees = identityAgrees
        self.file = file
        self.names = names
        self.sectionsKept = sectionsKept
    }
}

/// What drift found for one KVC rule.
public struct RuleDrift: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case ok, broken
    }

    /// Why a broken rule has no suggestion.
    public enum Absence: String, Sendable, Hashable {
        /// No node of the new trees (on the rule's page, while it exists) can take the rule's event.
        case noCandidate
        /// The view had an id, a title or a content, and no candidate shares one: it is gone.
        case viewGone
        /// The best candidate scores under the threshold.
        case tooWeak
        /// Another candidate is within the margin of the best.
        case tooClose
    }

    public var rule: KVCRule
    public var status: Status
    /// Nodes of the new trees that the pattern matches and whose role fits the view event.
    public var matches: Int
    /// The new viewPath, when the best candidate is clearly ahead (docs/drift.md).
    public var suggestion: DriftCandidate?
    /// The best candidates, best first (empty for a rule that is ok).
    public var candidates: [DriftCandidate]
    /// Broken although the pattern still matches: it now names other views than the one it matched
    /// in the baseline (a same-named sibling took its index, or the view was removed).
    public var matchesOtherViews: Bool
    /// Set for a broken rule without a suggestion.
    public var absence: Absence?
    /// False when no new tree holds the rule's page (the first name of its pattern): the page
    /// was renamed, or no tree of it was given.
    public var pageFound: Bool

    public init(
        rule: KVCRule, status: Status, matches: Int, suggestion: DriftCandidate?, candidates: [DriftCandidate],
        matchesOtherViews: Bool = false, absence: Absence? = nil, pageFound: Bool = true
    ) {
        self.rule = rule
        self.status = status
        self.matches = matches
        self.suggestion = suggestion
        self.candidates = candidates
        self.matchesOtherViews = matchesOtherViews
        self.absence = absence
        self.pageFound = pageFound
    }
}

/// Finds the KVC rules a new build breaks and where their views went (docs/drift.md).
public struct PathDrift {
    /// The least score a suggestion needs.
    public static let threshold = 0.65
    /// How far the best candidate must be ahead of the second.
    public static let margin = 0.10
    /// How many candidates a broken rule lists.
    public static let candidateLimit = 3

    let newNodes: [LocatedNode]
    let baselineNodes: [LocatedNode]

    /// `trees`: the new build's pages; `baseline`: the old build's (may be empty).
    public init(trees: [TreeFile], baseline: [TreeFile] = []) {
        newNodes = LocatedNode.all(in: trees)
        baselineNodes = LocatedNode.all(in: baseline)
    }

    /// The rules of `plan` in range (of `appKey`, when given; whose version range holds for
    /// `appVersion`, when given), in plan order, each with its status.
    public func check(_ plan: TrackingPlan, appKey: String? = nil, appVersion: AppVersion? = nil) -> [RuleDrift] {
        plan.rules.filter { rule in
            (appKey == nil || rule.appKey == appKey) && (appVersion.map { rule.appVersion.contains($0) } ?? true)
        }.map(check)
    }

    /// One rule's status, and for a broken one its candidates and suggestion.
    public func check(_ rule: KVCRule) -> RuleDrift {
        let fits = { (n: LocatedNode) in rule.viewEvent.fits(n.node.role) && rule.viewPath.matches(n.path) }
        let matched = newNodes.filter(fits)
        let references = baselineNodes.filter(fits)
        guard !matched.isEmpty else {
            let search = candidates(for: rule, references: references)
            return RuleDrift(
                rule: rule, status: .broken, matches: 0, suggestion: search.suggestion, candidates: search.candidates,
                absence: search.absence, pageFound: newNodes.contains { Self.isOnPage($0, of: rule) })
        }
        // The pattern matches: ok, unless the baseline tells its view apart (id, title) and none of
        // the nodes matched now is that view: then broken when their ids say they are other views,
        // or when that view is clearly found elsewhere (a changed title alone is not enough).
        let known = references.map(\.node).filter { $0.id != nil || !($0.title ?? "").isEmpty }
        guard !known.isEmpty, !matched.contains(where: { m in known.contains { r in Self.sameIdentity(m.node, r) } }) else {
            return RuleDrift(rule: rule, status: .ok, matches: matched.count, suggestion: nil, candidates: [])
        }
        let ids = Set(references.compactMap(\.node.id))
        let otherIDs = !ids.isEmpty && matched.allSatisfy { m in m.node.id.map { !ids.contains($0) } ?? false }
        let search = candidates(for: rule, references: references)
        let movedAway = search.suggestion.map { $0.viewPath != rule.viewPath.text } ?? false
        guard otherIDs || movedAway else {
            return RuleDrift(rule: rule, status: .ok, matches: matched.count, suggestion: nil, candidates: [])
        }
        return RuleDrift(
            rule: rule, status: .broken, matches: matched.count, suggestion: movedAway ? search.suggestion : nil,
            candidates: search.candidates, matchesOtherViews: true, absence: movedAway ? nil : search.absence ?? .viewGone)
    }

    /// True when the node's path starts at the rule's page (the first name of its pattern).
    static func isOnPage(_ node: LocatedNode, of rule: KVCRule) -> Bool {
        guard let root = node.path.elements.first, let page = rule.viewPath.names.first else { return false }
        return sameBytes(root.name, page)
    }

    /// Same id where both nodes have one (ids decide: two buttons with one title and their own
    /// ids are two views); else the same non-empty title, where the baseline node has one.
    static func sameIdentity(_ node: TreeNode, _ reference: TreeNode) -> Bool {
        if let id = reference.id, let other = node.id { return id == other }
        if let title = reference.title, !title.isEmpty, node.title == title { return true }
        return false
    }

    /// Every node of the new build whose role fits (on the rule's page while it exists), scored
    /// against the baseline nodes of its id and title and the first one (its best score counts),
    /// grouped by the pattern it would give, best first; and the suggestion, or why there is none.
    func candidates(for rule: KVCRule, references: [LocatedNode]) -> (
        candidates: [DriftCandidate], suggestion: DriftCandidate?, absence: RuleDrift.Absence?
    ) {
        // A view stays on its page: while the rule's page (the root of its pattern) is in the new
        // trees, only its nodes are candidates; when it is gone (renamed), every page is searched.
        let pageKept = newNodes.contains { Self.isOnPage($0, of: rule) }
        // Each candidate is compared with the baseline node of its id, the one of its title, and the
        // first one: with a whole list matched, its own row is found without trying every row.
        var byID: [String: LocatedNode] = [:], byTitle: [String: LocatedNode] = [:]
        for r in references.reversed() {
            if let id = r.node.id { byID[id] = r }
            if let t = r.node.title, !t.isEmpty { byTitle[t] = r }
        }
        // Names repeat across nodes: each pair is measured once, each pattern read once.
        var similarities: [String: [String: Double]] = [:]
        let similarity = { (a: String, b: String) -> Double in
            if let known = similarities[a]?[b] { return known }
            let s = NameSimilarity.of(a, b)
            similarities[a, default: [:]][b] = s
            return s
        }
        var readable: [String: Bool] = [:]
        var best: [String: DriftCandidate] = [:]
        for c in newNodes where rule.viewEvent.fits(c.node.role) && (!pageKept || Self.isOnPage(c, of: rule)) {
            let alignment = PathAlignment(pattern: rule.viewPath, path: c.path, nameSimilarity: similarity)
            let pattern = Self.pattern(c.path, like: rule.viewPath, alignment: alignment)
            if readable[pattern] == nil { readable[pattern] = Self.readsBack(pattern, elements: c.path.elements.count) }
            guard readable[pattern] == true else { continue }
            var top: CandidateScore?
            var compared: [LocatedNode?] = references.isEmpty ? [nil] : [references[0]]
            if let id = c.node.id, let r = byID[id] { compared.append(r) }
            if let t = c.node.title, let r = byTitle[t] { compared.append(r) }
            for r in compared {
                let s = CandidateScore.score(c, alignment: alignment, rule: rule, reference: r)
                if let t = top, t.rank >= s.rank { continue }
                top = s
            }
            guard let top else { continue }
            let candidate = DriftCandidate(
                viewPath: pattern, score: top.score, signals: top.agreeing, identityAgrees: top.identityAgrees, file: c.file,
                names: c.path.elements.map(\.name), sectionsKept: alignment.sectionsKept)
            if let old = best[pattern], old.rank >= top.rank { continue }
            best[pattern] = candidate
        }
        let ranked = best.values.sorted { $0.rank != $1.rank ? $0.rank > $1.rank : $0.viewPath < $1.viewPath }
        // Where the view can be told apart (an id or title in the baseline, the rule's content), only
        // candidates that agree on one of them can be it: the best of those must be clearly ahead of
        // the next of those. Elsewhere every candidate competes.
        let needsIdentity = rule.content != nil || references.contains { $0.node.id != nil || !($0.node.title ?? "").isEmpty }
        let contenders = needsIdentity ? ranked.filter(\.identityAgrees) : ranked
        let shown = Array(ranked.prefix(Self.candidateLimit))
        guard let first = contenders.first else { return (shown, nil, ranked.isEmpty ? .noCandidate : .viewGone) }
        guard first.score >= Self.threshold else { return (shown, nil, .tooWeak) }
        // Rows of another section (the rule said `9:*`) with the best one's names are not rivals of
        // a best one in that section: the rule chose the section, and a refactor of cells keeps it.
        let rivals = contenders.dropFirst().filter { c in
            !(first.sectionsKept && !c.sectionsKept && c.names.count == first.names.count
                && zip(c.names, first.names).allSatisfy { sameBytes($0, $1) })
        }
        guard first.score - (rivals.first?.score ?? 0) >= Self.margin - 1e-9 else {
            return (shown, nil, .tooClose)
        }
        return (shown, first, nil)
    }

    /// The canonical text of `path` with the old pattern's open indexes kept.
    static func pattern(_ path: ViewPath, like old: PathPattern, alignment: PathAlignment) -> String {
        let indexes = PathAlignment.generalize(path, like: old, steps: alignment.steps)
        return path.elements.map(\.name).joined(separator: "-") + "&" + indexes.map(\.description).joined(separator: "-")
    }

    /// False for a pattern that would not read back as written (a type name holding `-` or `&`):
    /// such a node cannot be named by a rule.
    static func readsBack(_ text: String, elements: Int) -> Bool {
        guard let parsed = try? PathPattern(text) else { return false }
        return parsed.names.count == elements
    }
}

/// Higher is better: the score, then agreement on an identity signal.
typealias Rank = (score: Double, identity: Int)

extension DriftCandidate {
    var rank: Rank { (score, identityAgrees ? 1 : 0) }
}

extension CandidateScore {
    var rank: Rank { (score, identityAgrees ? 1 : 0) }
}
