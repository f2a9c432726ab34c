public import ViewIdentity

/// Which views are watched for impressions (docs/agent.md "Impressions"): the tracker answers from
/// its plan's impression rules (KVC rules whose `viewEvent` is `Impression`). A hook system whose
/// observer also conforms to this protocol watches the views on screen; any other watches nothing.
public protocol ImpressionRules: AnyObject, Sendable {
    /// The path names of the elements the impression rules in use select (each rule's last path
    /// element: pattern names never hold wildcards). Empty while no impression rule applies, and
    /// then nothing is watched: no timer, no walk. Only views of these names are matched at all.
    var impressionElementNames: Set<String> { get }
    /// Whether an impression rule selects `node`, whose path is `path` (asked on the UI thread).
    func selectsImpression(_ node: any ViewNode, path: ViewPath) -> Bool
    /// Calls `body` after every change of the rules in use, on the thread that changed them.
    func onImpressionRulesChange(_ body: @escaping @Sendable () -> Void)
}
