public import EventModel

/// A request the handler answers, with its body's required fields checked by the server.
public enum ATLPRequest: Sendable, Hashable {
    /// `EVENTS {"batch":B,"sentAt":T,"events":[...]}`: `batch` a string or integer (echoed in
    /// `ACK`), `sentAt` the client's clock in ms when given, `events` an array, possibly empty;
    /// each event still to be validated (docs/wire.md §3).
    case events(batch: JSONValue, events: [JSONValue], sentAt: Int64?)
    /// `CONFIG {...}`: the body as sent (members are not required; see docs/wire.md).
    case config(JSONObject)
    /// `PUBLISH {"rules":[...],"sampleRate":R}` on an admin session: the rules as sent, to be
    /// validated, and the sampling rate (0…1) when given.
    case publish(rules: [JSONValue], sampleRate: Double?)
    /// `SNAPSHOT {...}`: a page picture and its tree, checked (docs/wire.md §2); it may exceed
    /// `maxFrame` up to the collector's snapshot limit.
    case snapshot(SnapshotUpload)

    /// The request's verb.
    public var verb: String {
        switch self {
        case .events: return "EVENTS"
        case .config: return "CONFIG"
        case .publish: return "PUBLISH"
        case .snapshot: return "SNAPSHOT"
        }
    }
}
