import EventModel
import EventStore
import KVCConfig
import ViewIdentity

/// The answer to `CONFIG`: the rules published for an app key whose version range holds the
/// app's version, and an etag that changes exactly when that list does.
public struct RuleSelection: Sendable, Hashable {
    /// Rule objects in publish order.
    public var rules: [JSONValue]
    /// Lowercase hex MD5 of the rules array's JSON text.
    public var etag: String

    /// Selects from `published` (every rule of one app key, in publish order).
    ///
    /// Without an app version (none in `HELLO`, or not a version) only rules for every
    /// version (`*`) hold: a client that does not say what it is gets no version-specific rule.
    public init(published: [StoredRule], appVersion: String?) {
        let version = appVersion.flatMap { AppVersion($0) }
        var selected: [JSONValue] = []
        for stored in published {
            guard let rule = RuleJSON.rule(stored) else { continue }
            let holds = version.map { rule.appVersion.contains($0) } ?? rule.appVersion.comparators.isEmpty
            if holds { selected.append(rule.json) }
        }
        self.rules = selected
        self.etag = MD5.hexDigest(of: JSONValue.array(selected).jsonBytes)
    }
}
