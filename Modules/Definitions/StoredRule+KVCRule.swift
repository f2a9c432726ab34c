import EventModel
public import EventStore
public import KVCConfig

extension StoredRule {
    /// What a store keeps of `rule`: its key columns and its JSON (KVCConfig's codec).
    public init(_ rule: KVCRule) {
        self.init(appKey: rule.appKey, id: rule.id, json: rule.json.jsonText)
    }

    /// The rule back from its JSON; nil if it no longer parses (never for rules this build stored).
    public var rule: KVCRule? { KVCRule(jsonText: json, source: "database") }
}
