import EventModel
import EventStore
import KVCConfig

/// Published rules between their three forms: `KVCRule` (validated by KVCConfig), the JSON
/// object of config.md §3 (what `PUBLISH` takes and `RULES` serves) and the store's row.
public enum RuleJSON {
    /// Validates rule objects as sent in `PUBLISH`, with KVCConfig's loader; all or none.
    public static func rules(_ values: [JSONValue], source: String = "PUBLISH") throws(ConfigError) -> [KVCRule] {
        try ConfigLoader.rules(json: .array(values), file: source)
    }

    /// The row the store keeps for `rule`; its JSON is the normalized object `RULES` serves.
    public static func stored(_ rule: KVCRule) -> StoredRule {
        StoredRule(
            appKey: rule.appKey, id: rule.id, appVersion: rule.appVersion.text, viewEvent: rule.viewEvent.rawValue,
            viewPath: rule.viewPath.text, keyPath: rule.keyPath.text, keyName: rule.keyName, content: rule.content,
            json: rule.json.jsonText)
    }

    /// Reads a stored rule back into a `KVCRule`; nil if it no longer parses (never for rules this build stored).
    public static func rule(_ stored: StoredRule) -> KVCRule? {
        guard let value = try? JSONValue.parse(stored.json) else { return nil }
        return (try? rules([value], source: "database"))?.first
    }
}
