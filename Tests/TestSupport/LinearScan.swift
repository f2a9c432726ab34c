public import KVCConfig
public import Matching
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
        withUnsafePointer(to: rule) { matches($0, query) }
    }

    /// Reads the rule's fields in place: a copy of a rule retains a dozen strings and arrays, which
    /// would make the baseline slower than the field's loop over object pointers.
    @inline(__always)
    private static func matches(_ rule: UnsafePointer<KVCRule>, _ query: MatchQuery) -> Bool {
        // Cheapest checks first, as the field does (view event, then element count).
        if rule.pointee.viewEvent != query.viewEvent { return false }
        if rule.pointee.viewPath.names.count != query.path.elements.count { return false }
        if let content = rule.pointee.content, content != query.title { return false }
        if let key = query.appKey, rule.pointee.appKey != key { return false }
        if !rule.pointee.viewPath.matches(query.path) { return false }
        if let version = query.appVersion, !rule.pointee.appVersion.contains(version) { return false }
        return true
    }

    /// Plan positions of the rules that match, ascending.
    public func matchingRuleIndexes(_ query: MatchQuery) -> [Int] {
        var out: [Int] = []
        rules.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for i in 0..<buffer.count where LinearScan.matches(base + i, query) { out.append(i) }
        }
        return out
    }
}
