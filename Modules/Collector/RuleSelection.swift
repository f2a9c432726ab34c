import EventModel
import EventStore
import KVCConfig

/// The answer to `CONFIG`: the rules published for an app key whose version range holds the
/// app's version, the app's sampling rate, and an etag that changes exactly when either does.
public struct RuleSelection: Sendable, Hashable {
    /// Rule objects in publish order.
    public var rules: [JSONValue]
    public var sampleRate: Double
    /// `StoredRuleSet.etag` of the selected rules and the rate: a function of the database's
    /// content, so every collector on one database serves the same etag for the same answer.
    public var etag: String

    /// Selects from `published` (one app's rule set; nil when none was published: no rules, rate 1).
    ///
    /// Without an app version (none in `HELLO`, or not a version) only rules for every
    /// version (`*`) hold: a client that does not say what it is gets no version-specific rule.
    public init(published: StoredRuleSet?, appVersion: String?) {
        let version = appVersion.flatMap { AppVersion($0) }
        var selected: [JSONValue] = []
        for stored in published?.rules ?? [] {
            guard let rule = stored.rule else { continue }
            if rule.appVersion.holds(version) { selected.append(rule.json) }
        }
        self.rules = selected
        self.sampleRate = published?.sampleRate ?? 1
        self.etag = StoredRuleSet.etag(ruleJSON: selected.map(\.jsonText), sampleRate: sampleRate)
    }
}

extension VersionRange {
    /// True when the range holds `version`; an unknown version (nil) is held only by `*`, as
    /// `CONFIG` serves rules and the report counts coverage.
    func holds(_ version: AppVersion?) -> Bool {
        guard let version else { return comparators.isEmpty }
        return contains(version)
    }
}
