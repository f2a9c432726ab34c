/// Where published rule sets live (`rules publish`, the ATLP `PUBLISH` and `RULES`, the studio):
/// part of `CollectorStore`. Every method may block: call them from threads of your own.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - a publish replaces each app's whole set in one transaction, with the new set's etag;
/// - an app with nothing published has no set.
public protocol RuleStore: AnyObject, Sendable {
    /// Replaces, for every app key among `rules` and `appKeys`, that app's whole rule set with
    /// these rules (in their order, a repeated id keeping the later rule) and `sampleRate`, in one
    /// transaction; returns how many rules those apps now have. The new set's etag is stored with
    /// it. An app of `appKeys` without rules among `rules` gets an empty set (the studio deleting
    /// an app's last definition).
    func publish(_ rules: [StoredRule], sampleRate: Double, appKeys: [String]) throws(StoreError) -> Int

    /// Published rule sets, by app key; only `appKey`'s when given (an app with nothing
    /// published has no set).
    func ruleSets(appKey: String?) throws(StoreError) -> [StoredRuleSet]
}

extension RuleStore {
    /// Replaces the sets of the app keys among `rules` (`rules publish`, `PUBLISH`).
    @discardableResult
    public func publish(_ rules: [StoredRule], sampleRate: Double) throws(StoreError) -> Int {
        try publish(rules, sampleRate: sampleRate, appKeys: [])
    }

    /// The rule set of one app, or nil when none was published.
    public func ruleSet(appKey: String) throws(StoreError) -> StoredRuleSet? {
        try ruleSets(appKey: appKey).first
    }

    /// Every published rule, by app key then publish order.
    public func rules(appKey: String? = nil) throws(StoreError) -> [StoredRule] {
        try ruleSets(appKey: appKey).flatMap(\.rules)
    }
}
