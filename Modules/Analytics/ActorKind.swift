import EventStore

/// Whom the analytics count: an actor is the event's `user`, else its `device` (`.user`); or
/// the device alone; or the session. Actors of different app keys are different actors.
public enum ActorKind: String, Sendable, Hashable, CaseIterable {
    case user, device, session

    /// The actor of `e`, nil when the event has none of this kind (it is then left out).
    public func actor(of e: ScannedEvent) -> ActorID? {
        let id: String?
        switch self {
        case .user: id = e.user ?? e.device
        case .device: id = e.device
        case .session: id = e.session
        }
        return id.map { ActorID(appKey: e.appKey, id: $0) }
    }

    /// The stored column(s) that name this kind of actor.
    public var column: ActorColumn {
        switch self {
        case .user: .userElseDevice
        case .device: .device
        case .session: .session
        }
    }
}

/// One actor: an id within an app key.
public struct ActorID: Sendable, Hashable {
    public var appKey: String
    public var id: String

    public init(appKey: String, id: String) {
        self.appKey = appKey
        self.id = id
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
