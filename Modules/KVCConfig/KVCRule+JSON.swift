public import EventModel
import ViewIdentity

extension KVCRule {
    /// The rule as docs/config.md §3 writes it, for `PUBLISH {"rules":[...]}` and for writing rules back out.
    public var json: JSONValue {
        var o = JSONObject()
        o["id"] = .string(id)
        if let name { o["name"] = .string(name) }
        o["appKey"] = .string(appKey)
        o["appVersion"] = .string(appVersion.text)
        o["viewEvent"] = .string(viewEvent.rawValue)
        o["viewPath"] = .string(viewPath.text)
        if !alsoViewPaths.isEmpty { o["alsoViewPaths"] = .array(alsoViewPaths.map { .string($0.text) }) }
        if let keyPath, let keyName {
            o["keyPath"] = .string(keyPath.text)
            o["keyName"] = .string(keyName)
        }
        if let content { o["content"] = .string(content) }
        if readText { o["readText"] = .bool(true) }
        return .object(o)
    }
}

extension TrackingPlan {
    /// The plan's rules as a rules document, `{"rules": [...]}`, in match order.
    public var rulesDocument: JSONValue {
        .object(JSONObject([("rules", .array(rules.map(\.json)))]))
    }
}

extension KVCRule {
    /// Reads rule objects as docs/config.md §3 writes them (`PUBLISH`, a store's rule JSON), all or
    /// none: the reading half of the codec whose writing half is `json`.
    public static func rules(json values: [JSONValue], source: String) throws(ConfigError) -> [KVCRule] {
        try ConfigLoader.rules(json: .array(values), file: source)
    }

    /// One rule from its compact JSON text (as a store keeps it); nil when it does not parse.
    public init?(jsonText: String, source: String) {
        guard let value = try? JSONValue.parse(jsonText), let rule = (try? Self.rules(json: [value], source: source))?.first else {
            return nil
        }
        self = rule
    }
}
