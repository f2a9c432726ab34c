#if canImport(Glibc)
import Glibc
#endif

/// The column that names an analytics actor (module `Analytics`' `ActorKind`): `user_id`, else
/// `device_id`; `device_id` alone; or `session`.
public enum ActorColumn: String, Sendable, Hashable, CaseIterable {
    case userElseDevice, device, session

    /// The actor id of an event with these fields, nil when it has none.
    public func id(user: String?, device: String?, session: String?) -> String? {
        switch self {
        case .userElseDevice: user ?? device
        case .device: device
        case .session: session
        }
    }
}

/// The compact selection funnels and retention tables read (`CollectorStore.actorEvents`): for
/// each stored event of one of `kinds` that has an actor, which kind, whose, and when.
public struct ActorEventQuery: Sendable, Hashable {
    public var filter: EventFilter
    /// Distinct kinds; `ActorEvent.kind` is an index into this list.
    public var kinds: [EventKind]
    public var actor: ActorColumn

    public init(filter: EventFilter = .all, kinds: [EventKind], actor: ActorColumn = .userElseDevice) {
        self.filter = filter
        self.kinds = kinds
        self.actor = actor
    }

    /// The index of the first kind equal to this type and name, nil when none is.
    public func kindIndex(type: String, name: String) -> Int? {
        kinds.firstIndex { $0.type == type && $0.name == name }
    }
}

/// One row of `CollectorStore.actorEvents`: no strings, so a million of them cost little.
public struct ActorEvent: Sendable, Hashable {
    /// The index in `ActorEventQuery.kinds` of the kind the event has.
    public var kind: Int
    /// The actor, numbered from 0 within one call in order of first appearance: two rows have
    /// the same number exactly when their app keys and actor ids are equal (bytes compared).
    public var actor: Int
    /// The corrected time, ms since the epoch.
    public var time: Int64
    /// Storage order.
    public var seq: Int64

    public init(kind: Int, actor: Int, time: Int64, seq: Int64) {
        self.kind = kind
        self.actor = actor
        self.time = time
        self.seq = seq
    }
}

/// Numbers actors densely from 0 by their bytes (app key, actor id), without building a String
/// per row: an open-addressing table over one byte arena. Every store numbers its rows with it.
public struct ActorNumbering {
    /// Per number: where its app key and id lie in `arena` (one after the other), and its hash.
    private var keys: [(offset: Int, appKeyCount: Int, idCount: Int, hash: UInt64)] = []
    private var arena: [UInt8] = []
    /// Slots holding number + 1 (0: empty); a power of two long.
    private var slots = [Int32](repeating: 0, count: 1024)

    public init() {}

    /// How many distinct actors were numbered.
    public var count: Int { keys.count }

    /// The number of the actor `id` of app `appKey` (UTF-8 bytes).
    public mutating func number(appKey: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) -> Int {
        // FNV-1a, 64 bits, over the app key, its length, then the id: a fixed function (not
        // Swift's seeded Hasher), cheap on short keys; the length keeps ("ab", "c") from ("a", "bc").
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in appKey { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        hash = (hash ^ UInt64(appKey.count)) &* 0x100_0000_01b3
        for b in id { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hash ^ (hash >> 29)) & mask
        while slots[i] != 0 {
            let n = Int(slots[i]) - 1
            let k = keys[n]
            if k.hash == hash, k.appKeyCount == appKey.count, k.idCount == id.count,
                arena.withUnsafeBytes({
                    memEqual($0.baseAddress! + k.offset, appKey.baseAddress, k.appKeyCount)
                        && memEqual($0.baseAddress! + k.offset + k.appKeyCount, id.baseAddress, k.idCount)
                })
            {
                return n
            }
            i = (i + 1) & mask
        }
        let n = keys.count
        keys.append((arena.count, appKey.count, id.count, hash))
        arena.append(contentsOf: appKey)
        arena.append(contentsOf: id)
        slots[i] = Int32(n + 1)
        if keys.count * 2 > slots.count { grow() }
        return n
    }

    /// The number of the actor `id` of app `appKey`.
    public mutating func number(appKey: String, id: String) -> Int {
        var a = appKey, i = id
        return a.withUTF8 { ab in i.withUTF8 { ib in number(appKey: UnsafeRawBufferPointer(ab), id: UnsafeRawBufferPointer(ib)) } }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (n, k) in keys.enumerated() {
            var i = Int(truncatingIfNeeded: k.hash ^ (k.hash >> 29)) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = Int32(n + 1)
        }
    }
}

/// True when the `count` bytes at `a` and `b` are equal (`b` may be nil only when `count` is 0).
private func memEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
    guard count > 0, let b else { return true }
    return memcmp(a, b, count) == 0
}

extension CollectorStore {
    /// The default `actorEvents`: `scan`, numbering actors with `ActorNumbering`. Rows come in
    /// storage order; a store's own implementation may give them in any order.
    public func scanningActorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        var numbering = ActorNumbering()
        try scan(EventScanQuery(filter: query.filter, kinds: query.kinds)) { e in
            guard let kind = query.kindIndex(type: e.type, name: e.name),
                let id = query.actor.id(user: e.user, device: e.device, session: e.session)
            else { return true }
            return each(ActorEvent(kind: kind, actor: numbering.number(appKey: e.appKey, id: id), time: e.time, seq: e.seq))
        }
    }

    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        try scanningActorEvents(query, each)
    }
}
