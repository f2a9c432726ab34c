import EventModel
public import KVCConfig
public import Matching
public import ViewIdentity

/// Debug mode's account of one interaction (docs/agent.md "Debug mode"): the rules that matched
/// with the values read, or, when none did, the nearest rule of the same `viewEvent` and the first
/// path element where it differs — what a person defining rules needs when "my rule doesn't fire".
public struct RuleDiagnosis: Sendable {
    /// The nearest rule, and where its path first differs from the interaction's.
    public struct Nearest: Sendable, Hashable {
        public var ruleID: String
        /// The element's position (0 = the first element); nil when the whole path matches (the
        /// rule then did not apply for another reason: app key or version).
        public var element: Int?
        /// The rule's element there (`name[index]`), or `(end)` when its path is shorter.
        public var expected: String
        /// The interaction's element there, or `(end)` when its path is shorter.
        public var actual: String

        public init(ruleID: String, element: Int?, expected: String, actual: String) {
            self.ruleID = ruleID
            self.element = element
            self.expected = expected
            self.actual = actual
        }
    }

    /// Ids and values of the rules that matched, in plan order.
    public var matched: [(id: String, value: String)]
    /// Set only when nothing matched and some rule has the interaction's `viewEvent`.
    public var nearest: Nearest?

    /// The diagnosis of an interaction with `viewEvent` at `path`, given the plan's matches for it.
    public init(rules: [KVCRule], viewEvent: ViewEvent, path: ViewPath, matches: [RuleMatch]) {
        self.init(
            rules: rules, viewEvent: viewEvent, path: path,
            matched: matches.map { m in
                switch m.result {
                case .success(let v): return (m.rule.id, v.jsonText)
                case .failure(let record): return (m.rule.id, "kvc_error(missing \(record.missingKey))")
                }
            })
    }

    /// The same from the ids and values (as printed) of the rules that matched.
    public init(rules: [KVCRule], viewEvent: ViewEvent, path: ViewPath, matched: [(id: String, value: String)]) {
        self.matched = matched
        nearest = matched.isEmpty ? RuleDiagnosis.nearest(rules: rules, viewEvent: viewEvent, path: path) : nil
    }

    /// The rule of `viewEvent` whose path has the most leading elements (name and index) equal to
    /// `path`; ties go to the earlier rule in plan order. Nil when no rule has that `viewEvent`.
    public static func nearest(rules: [KVCRule], viewEvent: ViewEvent, path: ViewPath) -> Nearest? {
        var best: (rule: KVCRule, same: Int)?
        for rule in rules where rule.viewEvent == viewEvent {
            let same = leadingEqual(rule.viewPath, path)
            if best == nil || same > best!.same { best = (rule, same) }
        }
        guard let (rule, same) = best else { return nil }
        let pattern = rule.viewPath
        let els = path.elements
        if same == pattern.elementCount && same == els.count {
            return Nearest(ruleID: rule.id, element: nil, expected: pattern.text, actual: path.canonical)
        }
        let expected = same < pattern.elementCount ? "\(pattern.names[same])[\(pattern.indexes[same])]" : "(end)"
        let actual = same < els.count ? "\(els[same].name)[\(els[same].index)]" : "(end)"
        return Nearest(ruleID: rule.id, element: same, expected: expected, actual: actual)
    }

    static func leadingEqual(_ pattern: PathPattern, _ path: ViewPath) -> Int {
        let n = min(pattern.elementCount, path.elements.count)
        var i = 0
        while i < n, pattern.names[i] == path.elements[i].name, pattern.indexes[i].matches(path.elements[i].index) { i += 1 }
        return i
    }

    /// The one line debug mode prints (no newline):
    /// `autotrack debug: click path=… code=… matched: r1=value` or `… no rule matched; nearest r2 differs at element 3: expected X[0], got Y[1]`.
    public func line(kind: String, path: ViewPath?, code: String) -> String {
        var s = "autotrack debug: \(kind) path=\(path?.canonical ?? "-") code=\(code)"
        if !matched.isEmpty {
            s += " matched: " + matched.map { "\($0.id)=\($0.value)" }.joined(separator: " ")
        } else if let n = nearest {
            if let e = n.element {
                s += " no rule matched; nearest \(n.ruleID) differs at element \(e): expected \(n.expected), got \(n.actual)"
            } else {
                s += " no rule matched; nearest \(n.ruleID) has this path but not this app key or version"
            }
        } else {
            s += " no rule matched; no rule has this view event"
        }
        return s
    }
}
