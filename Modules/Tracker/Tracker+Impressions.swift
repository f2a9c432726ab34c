import Hooks
import KVCConfig
import Matching
import ViewIdentity

/// The tracker as the hooks' source of impression rules (docs/agent.md "Impressions"): the rules
/// of the plan in use whose `viewEvent` is `Impression` select what is watched, through the same
/// matcher as every other event, so an impression's values are read as a click's are.
extension Tracker: ImpressionRules {
    /// Whether the plan in use has an impression rule for this app and version. Walks the rules:
    /// the hooks ask it when the rules change, not per look.
    public var watchesImpressions: Bool {
        let (rules, app) = (plan.rules, app)
        return rules.contains { $0.viewEvent == .impression && $0.appKey == app.key && $0.appVersion.contains(app.parsedVersion) }
    }

    public func selectsImpression(_ node: any ViewNode, path: ViewPath) -> Bool {
        let query = MatchQuery(viewEvent: .impression, path: path, title: node.title)
        return !shaper.matcher.matchingRuleIndexes(query).isEmpty
    }

    public func onImpressionRulesChange(_ body: @escaping @Sendable () -> Void) {
        impressionListeners.withLock { $0.append(body) }
    }

    /// After a plan swap: every hook system watching impressions looks at the new rules.
    func impressionRulesChanged() {
        for listener in impressionListeners.withLock({ $0 }) { listener() }
    }
}
