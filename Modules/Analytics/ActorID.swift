public import EventStore

/// One actor: an id within an app key.
public struct ActorID: Sendable, Hashable {
    public var appKey: String
    public var id: String

    public init(appKey: String, id: String) {
        self.appKey = appKey
        self.id = id
    }
}

extension ActorKind {
    /// The actor of `e` (identity merge by `links` for `.user`), nil when the event has none of
    /// this kind (it is then left out).
    public func actor(of e: ScannedEvent, links: DeviceLinks = .none) -> ActorID? {
        let sent = sentID(user: e.user, device: e.device, session: e.session)
        let id = mergesDevices ? links.actor(appKey: e.appKey, sentID: sent) : sent
        return id.map { ActorID(appKey: e.appKey, id: $0) }
    }
}

/// An event's place in time: by corrected time, ties by storage order.
struct EventOrder: Sendable, Hashable, Comparable {
    var time: Int64
    var seq: Int64

    init(_ e: ScannedEvent) {
        time = e.time
        seq = e.seq
    }

    static func < (a: EventOrder, b: EventOrder) -> Bool { (a.time, a.seq) < (b.time, b.seq) }
}
