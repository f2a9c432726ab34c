import KVCConfig
import ViewIdentity

/// The plain scan that field SDKs run: every rule, one by one, in plan order.
///
/// It is the reference the index must agree with (same rules, same order) and the baseline the
/// benchmark measures against; nothing in the tracking path uses it.
public struct LinearScan: Sendable {
    public let rules: [KVCRule]

    public init(rules: [KVCRule]) { self.rules = rules }

    /// True when `rule` matches `query` (config.md §3, viewpath.md §3).
    public static func ruleMatches(_ rule: KVCRule, _ query: MatchQuery) -> Bool {
        // Cheapest checks first, as the field does (view event, then element count inside `matches`).
        if rule.viewEvent != query.viewEvent { return false }
        if rule.viewPath.elementCount != query.path.elements.count { return false }
        if let content = rule.content, content != query.title { return false }
        if let key = query.appKey, rule.appKey != key { return false }
        if !rule.viewPath.matches(query.path) { return false }
        if let version = query.appVersion, !rule.appVersion.contains(version) { return false }
        return true
    }

    /// Plan positions of the rules that match, ascending.
    public func matchingRuleIndexes(_ query: MatchQuery) -> [Int] {
        var out: [Int] = []
        for (i, rule) in rules.enumerated() where LinearScan.ruleMatches(rule, query) { out.append(i) }
        return out
    }
}
