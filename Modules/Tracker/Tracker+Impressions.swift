public import Interactions
import KVCConfig
import Matching
import Synchronization
public import ViewIdentity

/// The tracker as the hooks' source of impression rules (docs/agent.md "Impressions"): the rules
/// of the plan in use whose `viewEvent` is `Impression` select what is watched, through the same
/// matcher as every other event, so an impression's values are read as a click's are.
extension Tracker: ImpressionRules {
    /// The last path names of the plan's impression rules for this app and version. Walks the
    /// rules: the hooks ask when the rules change, not per look.
    public var impressionElementNames: Set<String> {
        var names: Set<String> = []
        for rule in plan.rules
        where rule.viewEvent == .impression && rule.appKey == app.key && rule.appVersion.contains(app.parsedVersion) {
            if let last = rule.viewPath.names.last { names.insert(last) }
        }
        return names
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
