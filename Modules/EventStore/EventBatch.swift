public import EventModel

/// One `EVENTS` frame's worth of events, with who sent it (from the connection's `HELLO`).
public struct EventBatch: Sendable, Hashable {
    /// The app the events belong to; ids are unique per app key.
    public var appKey: String
    public var appVersion: String?
    /// The agent's self-description from `HELLO`, kept with the batch.
    public var agent: String?
    /// The client's batch label (`"batch"` in the frame), as JSON text; echoed in the `ACK`.
    public var label: String?
    /// The client's clock when it sent the frame (`"sentAt"`, ms since the epoch), nil when not
    /// given. The store corrects each event's time by `received − sentAt` (docs/wire.md).
    public var sentAt: Int64?
    /// The events as they arrived: generic values, each validated with `TrackEvent(json:)` when
    /// stored, or read and validated straight from an `EVENTS` frame's bytes.
    public var eventList: EventList

    /// The events as generic values.
    public var events: [JSONValue] {
        get { eventList.values }
        set { eventList = EventList(newValue) }
    }

    public init(
        appKey: String, appVersion: String? = nil, agent: String? = nil, label: String? = nil, sentAt: Int64? = nil,
        events: [JSONValue]
    ) {
        self.init(appKey: appKey, appVersion: appVersion, agent: agent, label: label, sentAt: sentAt, eventList: EventList(events))
    }

    public init(
        appKey: String, appVersion: String? = nil, agent: String? = nil, label: String? = nil, sentAt: Int64? = nil,
        eventList: EventList
    ) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.agent = agent
        self.label = label
        self.sentAt = sentAt
        self.eventList = eventList
    }

    /// The corrected time of an event stamped `ts` in this batch, received at `receivedAt`:
    /// `ts + (receivedAt − sentAt)`, or `ts` when the client sent no `sentAt`. The correction is
    /// not applied (the time is `ts`) when `sentAt`, `ts` or `receivedAt` lies outside
    /// `EventTime.range` or the corrected time would (docs/wire.md §2, choice 7), so it is always
    /// a valid time for a valid `ts`, and no client value can overflow it.
    public func correctedTime(ts: Int64, receivedAt: Int64) -> Int64 {
        guard let sentAt, EventTime.range.contains(sentAt), EventTime.range.contains(ts), EventTime.range.contains(receivedAt)
        else { return ts }
        // Each term within the range: neither the skew nor the sum can overflow.
        let time = ts + (receivedAt - sentAt)
        return EventTime.range.contains(time) ? time : ts
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
