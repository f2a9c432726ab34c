public import EventModel

/// Which stored events a report or query covers; every member narrows, nil means all.
public struct EventFilter: Sendable, Hashable {
    public var appKey: String?
    /// The app version from `HELLO`, compared as text.
    public var appVersion: String?
    /// Corrected time at or after, ms since the epoch.
    public var since: Int64?
    /// Corrected time before (exclusive), ms since the epoch.
    public var until: Int64?

    public init(appKey: String? = nil, appVersion: String? = nil, since: Int64? = nil, until: Int64? = nil) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.since = since
        self.until = until
    }

    /// Everything stored.
    public static let all = EventFilter()
}

/// A streamed selection of stored events (`EventSource.events`), in storage order.
public struct EventQuery: Sendable, Hashable {
    public var filter: EventFilter
    /// Event types to keep (`click`, `page_enter`, ...); empty keeps every type.
    public var types: [String]
    /// Only events stored after this `seq` (to follow new events, pass the last one seen).
    public var afterSeq: Int64?
    /// At most this many events.
    public var limit: Int?

    public init(filter: EventFilter = .all, types: [String] = [], afterSeq: Int64? = nil, limit: Int? = nil) {
        self.filter = filter
        self.types = types
        self.afterSeq = afterSeq
        self.limit = limit
    }
}

/// One stored event with what the collector added to it.
public struct StoredEvent: Sendable, Hashable {
    /// Storage order, increasing; unique within one database.
    public var seq: Int64
    public var appKey: String
    /// From the connection's `HELLO`.
    public var appVersion: String?
    /// The event as sent (its `ts` unchanged).
    public var event: TrackEvent
    /// The corrected time, `ts + (received − sentAt)`; `ts` when the batch had no `sentAt`.
    public var time: Int64
    /// When the collector stored it, ms since the epoch.
    public var receivedAt: Int64

    public init(seq: Int64, appKey: String, appVersion: String?, event: TrackEvent, time: Int64, receivedAt: Int64) {
        self.seq = seq
        self.appKey = appKey
        self.appVersion = appVersion
        self.event = event
        self.time = time
        self.receivedAt = receivedAt
    }
}
