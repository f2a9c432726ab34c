import EventModel
/// One event type and name, as a funnel step or a retention event names it (`TYPE:NAME`).
public struct EventKind: Sendable, Hashable, CustomStringConvertible {
    /// The wire type (`click`, `page_enter`, ...).
    public var type: String
    public var name: String

    public init(type: String, name: String) {
        self.type = type
        self.name = name
    }

    /// `TYPE:NAME`: the type is everything before the first `:`, the name everything after it
    /// (so a name may hold `:` itself).
    public var description: String { "\(type):\(name)" }
}

/// A streamed selection of stored events for the analytics (`AnalyticsStore.scan`).
public struct EventScanQuery: Sendable, Hashable {
    public var filter: EventFilter
    /// Only events of these types and names; empty keeps every event.
    public var kinds: [EventKind]

    public init(filter: EventFilter = .all, kinds: [EventKind] = []) {
        self.filter = filter
        self.kinds = kinds
    }

    /// True when `kinds` keeps an event of this type and name.
    public func keeps(type: String, name: String) -> Bool {
        kinds.isEmpty || kinds.contains { $0.type == type && $0.name == name }
    }
}

/// The fields of one stored event the analytics read (no id, no props): what `scan` streams.
public struct ScannedEvent: Sendable, Hashable {
    /// Storage order, increasing.
    public var seq: Int64
    public var appKey: String
    /// From the batch's `HELLO`.
    public var appVersion: String?
    /// The corrected time (`StoredEvent.time`), ms since the epoch.
    public var time: Int64
    public var type: String
    public var name: String
    public var page: String?
    public var path: String?
    public var session: String?
    public var user: String?
    public var device: String?
    public var duration: Int64?

    public init(
        seq: Int64, appKey: String, appVersion: String? = nil, time: Int64, type: String, name: String, page: String? = nil,
        path: String? = nil, session: String? = nil, user: String? = nil, device: String? = nil, duration: Int64? = nil
    ) {
        self.seq = seq
        self.appKey = appKey
        self.appVersion = appVersion
        self.time = time
        self.type = type
        self.name = name
        self.page = page
        self.path = path
        self.session = session
        self.user = user
        self.device = device
        self.duration = duration
    }

    /// The fields of a stored event.
    public init(_ stored: StoredEvent) {
        let e = stored.event
        self.init(
            seq: stored.seq, appKey: stored.appKey, appVersion: stored.appVersion, time: stored.time, type: e.type.rawValue, name: e.name, page: e.page,
            path: e.path, session: e.session, user: e.user, device: e.device, duration: e.duration)
    }
}
