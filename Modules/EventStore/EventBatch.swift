import EventModel

/// One `EVENTS` frame's worth of events, with who sent it (from the connection's `HELLO`).
public struct EventBatch: Sendable, Hashable {
    /// The app the events belong to; ids are unique per app key.
    public var appKey: String
    public var appVersion: String?
    /// The agent's self-description from `HELLO`, kept in the `batches` table.
    public var agent: String?
    /// The client's batch label (`"batch"` in the frame), as JSON text; echoed in the `ACK`.
    public var label: String?
    /// The events as they arrived; each is validated with `TrackEvent(json:)` when stored.
    public var events: [JSONValue]

    public init(appKey: String, appVersion: String? = nil, agent: String? = nil, label: String? = nil, events: [JSONValue]) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.agent = agent
        self.label = label
        self.events = events
    }
}

/// What became of a batch: every event is exactly one of stored, duplicate or rejected.
public struct BatchOutcome: Sendable, Hashable {
    public var stored: Int
    /// Events whose `(appKey, id)` was already stored, earlier or earlier in this batch.
    public var duplicates: Int
    public var rejected: Int
    /// The reason of each rejected event, in batch order.
    public var rejections: [String]

    public init(stored: Int = 0, duplicates: Int = 0, rejected: Int = 0, rejections: [String] = []) {
        self.stored = stored
        self.duplicates = duplicates
        self.rejected = rejected
        self.rejections = rejections
    }
}

/// A published KVC rule as the store keeps it: the fields it is queried by, and its JSON object.
public struct StoredRule: Sendable, Hashable {
    public var appKey: String
    public var id: String
    /// The version range as written (`>=1.2.0 <2.0.0`, `*`).
    public var appVersion: String
    public var viewEvent: String
    public var viewPath: String
    public var keyPath: String
    public var keyName: String
    public var content: String?
    /// The rule object as served in `RULES` (config.md §3 field names).
    public var json: String
    /// Milliseconds since the epoch; 0 before it is stored.
    public var publishedAt: Int64

    public init(
        appKey: String, id: String, appVersion: String, viewEvent: String, viewPath: String, keyPath: String,
        keyName: String, content: String? = nil, json: String, publishedAt: Int64 = 0
    ) {
        self.appKey = appKey
        self.id = id
        self.appVersion = appVersion
        self.viewEvent = viewEvent
        self.viewPath = viewPath
        self.keyPath = keyPath
        self.keyName = keyName
        self.content = content
        self.json = json
        self.publishedAt = publishedAt
    }
}
