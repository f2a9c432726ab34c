import Definitions
public import EventModel
import EventStore
public import KVCConfig
import Synchronization

/// The answer to `CONFIG`: the rules published for an app key whose version range holds the
/// app's version, the app's sampling rate, and an etag that changes exactly when either does.
public struct RuleSelection: Sendable, Hashable {
    /// Rule objects in publish order.
    public var rules: [JSONValue]
    public var sampleRate: Double
    /// `StoredRuleSet.etag` of the selected rules and the rate: a function of the database's
    /// content, so every collector on one database serves the same etag for the same answer.
    public var etag: String

    /// Selects from one app's parsed rules (in publish order) and its sampling rate; an app with
    /// nothing published has no rules and rate 1.
    ///
    /// Without an app version (none in `HELLO`, or not a version) only rules for every
    /// version (`*`) hold: a client that does not say what it is gets no version-specific rule.
    public init(rules: [KVCRule], sampleRate: Double, appVersion: String?) {
        let version = appVersion.flatMap { AppVersion($0) }
        let selected = rules.filter { $0.appVersion.holds(version) }.map(\.json)
        self.rules = selected
        self.sampleRate = sampleRate
        self.etag = StoredRuleSet.etag(ruleJSON: selected.map(\.jsonText), sampleRate: sampleRate)
    }
}

/// Parsed rule sets by app key, reused while a set's stored etag is unchanged: `CONFIG` comes
/// from every running app at every refresh, and parsing a set costs far more than reading it.
/// One entry per app key that asked.
final class ParsedRuleSets: Sendable {
    private let cache = Mutex<[String: (etag: String, rules: [KVCRule])]>([:])

    init() {}

    /// `set`'s rules, parsed once per etag.
    func rules(of set: StoredRuleSet) -> [KVCRule] {
        if let hit = cache.withLock({ $0[set.appKey] }), hit.etag == set.etag { return hit.rules }
        let rules = set.rules.compactMap(\.rule)
        cache.withLock { $0[set.appKey] = (set.etag, rules) }
        return rules
    }
}
