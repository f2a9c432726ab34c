public import EventModel

/// The one factory of test events: every suite builds its events here, as values (`event`) or
/// in their wire form (`json`), and names its own fixtures on top.
public enum TestEvents {
    /// The default `ts`: 2023-11-14T22:13:20Z.
    public static let time: Int64 = 1_700_000_000_000

    /// A valid event; every field but the four required ones is left out unless given.
    public static func event(
        _ id: String, type: EventType = .click, name: String = "n", ts: Int64 = time, page: String? = nil,
        path: String? = nil, viewId: String? = nil, session: String? = nil, user: String? = nil, device: String? = nil,
        duration: Int64? = nil, props: [(String, JSONValue)] = []
    ) -> TrackEvent {
        TrackEvent(
            id: id, ts: ts, type: type, name: name, page: page, path: path, viewId: viewId, session: session, user: user,
            device: device, duration: duration, props: JSONObject(props))
    }

    /// An event's wire form: `id`, `ts`, `type`, `name`, then `extra` in order (a key given again
    /// replaces its value). `type` and `extra` are not checked, so tests can make invalid events.
    public static func json(
        _ id: String, type: String = "click", name: String = "n", ts: Int64 = time, extra: [(String, JSONValue)] = []
    ) -> JSONValue {
        var o = JSONObject([("id", .string(id)), ("ts", .int(ts)), ("type", .string(type)), ("name", .string(name))])
        for (k, v) in extra { o[k] = v }
        return .object(o)
    }
}
