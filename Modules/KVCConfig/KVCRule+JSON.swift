import EventModel

extension KVCRule {
    /// The rule as config.md §3 writes it, for `PUBLISH {"rules":[...]}` and for writing rules back out.
    public var json: JSONValue {
        var o = JSONObject()
        o["id"] = .string(id)
        o["appKey"] = .string(appKey)
        o["appVersion"] = .string(appVersion.text)
        o["viewEvent"] = .string(viewEvent.rawValue)
        o["viewPath"] = .string(viewPath.text)
        o["keyPath"] = .string(keyPath.text)
        o["keyName"] = .string(keyName)
        if let content { o["content"] = .string(content) }
        return .object(o)
    }
}

extension TrackingPlan {
    /// The plan's rules as a rules document, `{"rules": [...]}`, in match order.
    public var rulesDocument: JSONValue {
        .object(JSONObject([("rules", .array(rules.map(\.json)))]))
    }
}
