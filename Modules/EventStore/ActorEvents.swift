import SystemCalls

/// The compact selection funnels and retention tables read (`AnalyticsStore.actorEvents`): for
/// each stored event of one of `kinds` that has an actor, which kind, whose, and when.
public struct ActorEventQuery: Sendable, Hashable {
    public var filter: EventFilter
    /// Distinct kinds; `ActorEvent.kind` is an index into this list.
    public var kinds: [EventKind]
    /// Whom the rows count (`.user`: people, identity merge applied).
    public var actor: ActorKind
    /// True: rows come in time order, all kinds merged, rows of one time in storage order
    /// (`seq`), except that rows of one time and one kind may come in any order among themselves
    /// (no counter can tell them apart: the same step at the same moment); a counter can then
    /// keep a state per actor instead of every row. False: any order.
    public var inTimeOrder: Bool

    public init(filter: EventFilter = .all, kinds: [EventKind], actor: ActorKind = .user, inTimeOrder: Bool = false) {
        self.filter = filter
        self.kinds = kinds
        self.actor = actor
        self.inTimeOrder = inTimeOrder
    }

    /// For a store that reads rows in any order: reads them all through `read` (given this query
    /// without `inTimeOrder`), then hands them to `each` in time order (`ActorEvent.merge` of
    /// each kind's rows sorted).
    public func sortingByTime(
        _ read: (ActorEventQuery, (ActorEvent) -> Bool) throws(StoreError) -> Void, _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        var unordered = self
        unordered.inTimeOrder = false
        var byKind = [[ActorEvent]](repeating: [], count: kinds.count)
        try read(unordered) { byKind[$0.kind].append($0); return true }
        for k in byKind.indices { byKind[k].sort(by: ActorEvent.precedes) }
        _ = ActorEvent.merge(byKind, each)
    }

    /// The index of the first kind equal to this type and name, nil when none is.
    public func kindIndex(type: String, name: String) -> Int? {
        kinds.firstIndex { $0.type == type && $0.name == name }
    }
}

/// One row of `AnalyticsStore.actorEvents`, the one event row of the analytics' reads: no
/// strings, so a million of them cost little.
public struct ActorEvent: Sendable, Hashable {
    /// The index in `ActorEventQuery.kinds` of the kind the event has.
    public var kind: Int
    /// The actor, numbered from 0 within one call: two rows have the same number exactly when
    /// they have the same actor (`ActorNumbers`: app keys and actor ids equal, bytes compared,
    /// after identity merge).
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

    /// Time order, ties by storage order.
    @inline(__always)
    package static func precedes(_ a: ActorEvent, _ b: ActorEvent) -> Bool { a.time < b.time || (a.time == b.time && a.seq < b.seq) }

    /// The one time-ordered merge: hands the rows of `lists` (each in time order, ties by seq) to
    /// `each` in that order across lists, until it returns false; false when it did.
    package static func merge(_ lists: [[ActorEvent]], _ each: (ActorEvent) -> Bool) -> Bool {
        if lists.count == 1 { return lists[0].allSatisfy(each) }
        var at = [Int](repeating: 0, count: lists.count)
        while true {
            var first = -1
            for i in lists.indices where at[i] < lists[i].count {
                if first < 0 || precedes(lists[i][at[i]], lists[first][at[first]]) { first = i }
            }
            guard first >= 0 else { return true }
            let r = lists[first][at[first]]
            at[first] += 1
            if !each(r) { return false }
        }
    }
}

/// Numbers actors densely from 0 by their bytes (app key, actor id), without building a String
/// per row: every store numbers its rows with it. Built `merging` a store's device links, a
/// merged device's id gets its one user's number (identity merge at no cost per row).
///
/// App keys are numbered first (one table; a row of the same app as the row before costs a
/// comparison of two words), then actors by (app number, id) in a second table whose slots hold
/// short ids (up to 16 bytes, most user and device ids) inline: a lookup reads one slot and
/// compares its words, instead of following a slot to a key record to the bytes.
package struct ActorNumbers {
    /// An app key's number within one `ActorNumbers` (`app(_:)`), valid only with it.
    package struct App: Sendable, Hashable {
        fileprivate let number: UInt32
    }

    private var apps = ByteKeyNumbering()
    private var actors = ByteKeyNumbering()
    /// The last app key of at most 16 bytes (its byte count and words, `ByteKeyNumbering.inline`)
    /// and its number: rows of one app in a row cost a comparison of two words.
    private var lastApp: (count: Int, words: (UInt64, UInt64), app: App)?

    package init() {}

    /// Numbers every merged device of `links` as its user: the user is numbered, and the
    /// device's id gets the same number.
    package init(merging links: DeviceLinks) {
        for l in links.merged().sorted(by: { ($0.appKey, $0.device) < ($1.appKey, $1.device) }) {
            let user = number(appKey: l.appKey, id: l.user)
            var app = l.appKey, device = l.device
            let a = app.withUTF8 { self.app(UnsafeRawBufferPointer($0)) }
            device.withUTF8 { actors.alias(UnsafeRawBufferPointer($0), tag: a.number, to: user) }
        }
    }

    /// How many distinct actors were numbered.
    package var count: Int { actors.count }

    /// The number of app key `appKey` (UTF-8 bytes), for `number(app:id:)`.
    package mutating func app(_ appKey: UnsafeRawBufferPointer) -> App {
        guard appKey.count <= 16 else { return App(number: UInt32(apps.number(appKey, tag: 0))) }
        let words = ByteKeyNumbering.inline(appKey)
        if let last = lastApp, last.count == appKey.count, last.words == words { return last.app }
        let app = App(number: UInt32(apps.number(appKey, tag: 0)))
        lastApp = (appKey.count, words, app)
        return app
    }

    /// The number of the actor `id` (UTF-8 bytes) of `app`.
    package mutating func number(app: App, id: UnsafeRawBufferPointer) -> Int {
        actors.number(id, tag: app.number)
    }

    /// The actor `id` of `app`, hashed for `ActorRowNumberer`; nil when its id is longer than 16
    /// bytes (number it at once with `number(app:id:)`).
    func inlineKey(app: App, id: UnsafeRawBufferPointer) -> ByteKeyNumbering.InlineKey? {
        ByteKeyNumbering.inlineKey(id, tag: app.number)
    }

    mutating func touch(_ keys: UnsafeBufferPointer<ByteKeyNumbering.InlineKey>) { actors.touch(keys) }

    mutating func number(_ key: ByteKeyNumbering.InlineKey) -> Int { actors.number(key) }

    /// The number of the actor `id` of app `appKey` (UTF-8 bytes).
    package mutating func number(appKey: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) -> Int {
        number(app: app(appKey), id: id)
    }

    /// The number of the actor `id` of app `appKey`.
    package mutating func number(appKey: String, id: String) -> Int {
        var a = appKey, i = id
        return a.withUTF8 { ab in i.withUTF8 { ib in number(appKey: UnsafeRawBufferPointer(ab), id: UnsafeRawBufferPointer(ib)) } }
    }
}

/// Numbers a store's actor rows on their way out: each row's actor is hashed as it is read, and
/// every `capacity` rows are numbered together, in order, and handed on. Numbering a batch at
/// once lets its lookups' cache misses overlap (`ByteKeyNumbering.touch`).
package struct ActorRowNumberer {
    private var numbers: ActorNumbers
    private var keys: [ByteKeyNumbering.InlineKey] = []
    /// Ids longer than 16 bytes: their app and where their bytes lie in `longBytes`.
    private var longs: [(app: ActorNumbers.App, offset: Int, count: Int)] = []
    private var longBytes: [UInt8] = []
    /// The rows added since the last flush, each `actor` an index in `keys`, or −1 − an index in `longs`.
    private var rows: [ActorEvent] = []
    private let capacity: Int

    package init(capacity: Int = 256, numbers: ActorNumbers = ActorNumbers()) {
        precondition(capacity > 0, "a batch holds at least one row")
        self.capacity = capacity
        self.numbers = numbers
        keys.reserveCapacity(capacity)
        rows.reserveCapacity(capacity)
    }

    /// The number of app key `appKey` (`ActorNumbers.app`).
    package mutating func app(_ appKey: UnsafeRawBufferPointer) -> ActorNumbers.App { numbers.app(appKey) }

    /// Adds a row; when the batch is full, numbers it and hands its rows to `each` (`flush`).
    /// False once `each` returned false: stop reading.
    package mutating func add(
        kind: Int, app: ActorNumbers.App, id: UnsafeRawBufferPointer, time: Int64, seq: Int64, _ each: (ActorEvent) -> Bool
    ) -> Bool {
        if let k = numbers.inlineKey(app: app, id: id) {
            rows.append(ActorEvent(kind: kind, actor: keys.count, time: time, seq: seq))
            keys.append(k)
        } else {
            rows.append(ActorEvent(kind: kind, actor: -1 - longs.count, time: time, seq: seq))
            longs.append((app, longBytes.count, id.count))
            longBytes.append(contentsOf: id)
        }
        return rows.count < capacity || flush(each)
    }

    /// Numbers the rows added since the last flush and hands them to `each` in order; false
    /// when `each` returned false.
    package mutating func flush(_ each: (ActorEvent) -> Bool) -> Bool {
        defer {
            keys.removeAll(keepingCapacity: true)
            longs.removeAll(keepingCapacity: true)
            longBytes.removeAll(keepingCapacity: true)
            rows.removeAll(keepingCapacity: true)
        }
        keys.withUnsafeBufferPointer { numbers.touch($0) }
        for var r in rows {
            if r.actor >= 0 {
                r.actor = numbers.number(keys[r.actor])
            } else {
                let long = longs[-1 - r.actor]
                r.actor = longBytes.withUnsafeBytes {
                    numbers.number(app: long.app, id: UnsafeRawBufferPointer(rebasing: $0[long.offset..<long.offset + long.count]))
                }
            }
            if !each(r) { return false }
        }
        return true
    }
}

/// Numbers keys (a tag below 2^24 and a byte string) densely from 0 in order of first
/// appearance: an open-addressing table, linear probing, at most 70 % full, whose 32-byte slots
/// hold keys of up to 16 bytes inline. Small slots matter: a funnel looks up one actor per row in
/// no particular order, so the table's size decides how many lookups miss the caches.
struct ByteKeyNumbering {
    /// One slot: `meta` holds number + 1 (bits 0–31; 0: empty), the tag (bits 32–55) and the
    /// byte count, 0–16, or `outOfLine` (bits 56–63); `words` the bytes (`inline(_:)`) or, for a
    /// longer key, its offset in `arena` and its byte count.
    private struct Slot {
        var meta: UInt64 = 0
        var words: (UInt64, UInt64) = (0, 0)
        /// The key's hash: grows without rehashing, and pads the slot to 32 bytes, so no slot
        /// straddles two cache lines.
        var hash: UInt64 = 0
    }

    private static let outOfLine: UInt64 = 0xff
    private var slots = [Slot](repeating: Slot(), count: 1024)
    /// The bytes of keys longer than 16, one after the other.
    private var arena: [UInt8] = []
    /// Numbers given (the next one is `count`); aliases share a number and are not counted.
    private(set) var count = 0
    /// Keys in the table, aliases included.
    private var keys = 0

    /// A key of at most 16 bytes, hashed, ready to be numbered (`number(_:)`) without its bytes.
    struct InlineKey {
        var words: (UInt64, UInt64)
        var key: UInt64
        var hash: UInt64
    }

    /// The key (`tag`, `bytes`) of at most 16 bytes; nil for a longer one.
    @inline(__always)
    static func inlineKey(_ bytes: UnsafeRawBufferPointer, tag: UInt32) -> InlineKey? {
        precondition(tag < 1 << 24, "more than 16 million app keys in one query")
        guard bytes.count <= 16 else { return nil }
        let key = UInt64(tag) << 32 | UInt64(bytes.count) << 56
        let words = inline(bytes)
        return InlineKey(words: words, key: key, hash: mix(words.0, words.1, key))
    }

    /// The number of the key (`tag`, `bytes`).
    mutating func number(_ bytes: UnsafeRawBufferPointer, tag: UInt32) -> Int { number(bytes, tag: tag, new: nil) }

    /// Gives the key (`tag`, `bytes`) the number `number`, given before to another key, unless it
    /// has one already: later lookups of either key answer it.
    mutating func alias(_ bytes: UnsafeRawBufferPointer, tag: UInt32, to number: Int) {
        precondition(number < count, "an alias takes a number given before")
        _ = self.number(bytes, tag: tag, new: number)
    }

    /// The number of the key; when absent, it is added with `new`, or with the next number.
    private mutating func number(_ bytes: UnsafeRawBufferPointer, tag: UInt32, new: Int?) -> Int {
        if let k = Self.inlineKey(bytes, tag: tag) { return number(k, new: new) }
        let key = UInt64(tag) << 32 | Self.outOfLine << 56
        let mask = slots.count - 1
        let hash = Self.hashOutOfLine(bytes, key)
        var i = Int(truncatingIfNeeded: hash >> 32) & mask
        while true {
            let s = slots[i]
            if s.meta & 0xffff_ffff == 0 { break }
            if s.meta & ~0xffff_ffff == key, s.words.1 == UInt64(bytes.count), arenaHolds(bytes, at: Int(s.words.0)) {
                return Int(s.meta & 0xffff_ffff) - 1
            }
            i = (i + 1) & mask
        }
        let number = insert(at: i, Slot(meta: key, words: (UInt64(arena.count), UInt64(bytes.count)), hash: hash), number: new)
        arena.append(contentsOf: bytes)
        return number
    }

    /// The number of an inline key.
    @inline(__always)
    mutating func number(_ k: InlineKey, new: Int? = nil) -> Int {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: k.hash >> 32) & mask
        while true {
            let s = slots[i]
            if s.meta & 0xffff_ffff == 0 { break }
            if s.meta & ~0xffff_ffff == k.key, s.words == k.words { return Int(s.meta & 0xffff_ffff) - 1 }
            i = (i + 1) & mask
        }
        return insert(at: i, Slot(meta: k.key, words: k.words, hash: k.hash), number: new)
    }

    /// Reads the slot where each of `keys` starts its search, all before any is compared: the
    /// reads do not wait for one another, so a batch's cache misses overlap instead of coming one
    /// after the other.
    mutating func touch(_ keys: UnsafeBufferPointer<InlineKey>) {
        let mask = slots.count - 1
        var any: UInt64 = 0
        slots.withUnsafeBufferPointer { slots in
            for k in keys {
                // The slot where the search starts and the next, which it often reaches.
                let i = Int(truncatingIfNeeded: k.hash >> 32) & mask
                any |= slots[i].meta | slots[(i + 1) & mask].meta
            }
        }
        touched = any
    }

    /// What `touch` read, kept so that the reads are not optimized away.
    private var touched: UInt64 = 0

    /// Puts `slot` at `i` with `number`, or with the next number when nil.
    private mutating func insert(at i: Int, _ slot: Slot, number given: Int?) -> Int {
        let number = given ?? count
        precondition(number < Int(UInt32.max), "more than 4 billion actors in one query")
        var slot = slot
        slot.meta |= UInt64(number + 1)
        slots[i] = slot
        if given == nil { count += 1 }
        keys += 1
        if keys * 10 > slots.count * 7 { grow() }
        return number
    }

    /// Up to 16 bytes as two words, equal exactly when the bytes are (given their count): the
    /// first 8 and the last 8, overlapping when fewer than 16; under 8, zero-padded.
    @inline(__always)
    static func inline(_ bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let n = bytes.count
        guard let p = bytes.baseAddress else { return (0, 0) }
        if n >= 8 { return (p.loadUnaligned(as: UInt64.self), p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) }
        var w: UInt64 = 0
        for k in 0..<n { w |= UInt64(p.load(fromByteOffset: k, as: UInt8.self)) << (8 * UInt64(k)) }
        return (w, 0)
    }

    /// The hash of a key longer than 16 bytes: its 8-byte words folded, then mixed with `key`.
    private static func hashOutOfLine(_ bytes: UnsafeRawBufferPointer, _ key: UInt64) -> UInt64 {
        let p = bytes.baseAddress!
        var h = UInt64(bytes.count)
        var k = 0
        while k + 8 <= bytes.count {
            h = mix(h, p.loadUnaligned(fromByteOffset: k, as: UInt64.self), 0)
            k += 8
        }
        return mix(h, p.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self), key)
    }

    /// A fixed 64-bit mix of three words (not Swift's seeded Hasher: the same key hashes the same
    /// in every process); its high bits pick the slot.
    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
        var h = (a ^ 0x9e37_79b9_7f4a_7c15) &* 0xbf58_476d_1ce4_e5b9
        h = (h ^ (h >> 31) ^ b) &* 0x94d0_49bb_1331_11eb
        return (h ^ (h >> 29) ^ c) &* 0xbf58_476d_1ce4_e5b9
    }

    private func arenaHolds(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        arena.withUnsafeBytes { memEqual($0.baseAddress! + offset, bytes.baseAddress, bytes.count) }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        let mask = slots.count - 1
        for s in old where s.meta & 0xffff_ffff != 0 {
            let hash = s.hash
            var i = Int(truncatingIfNeeded: hash >> 32) & mask
            while slots[i].meta & 0xffff_ffff != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }
}

/// True when the `count` bytes at `a` and `b` are equal (either may be nil only when `count` is 0).
private func memEqual(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
    guard count > 0, let a, let b else { return true }
    return memcmp(a, b, count) == 0
}

extension AnalyticsStore {
    /// The numbering of `query`'s actors: merging the store's device links when its actors are
    /// people (`ActorKind.mergesDevices`), else plain.
    package func actorNumbers(for query: ActorEventQuery) throws(StoreError) -> ActorNumbers {
        query.actor.mergesDevices ? ActorNumbers(merging: try deviceLinks(appKey: query.filter.appKey)) : ActorNumbers()
    }

    /// The default `actorEvents`: `scan`, numbering actors with `ActorNumbers`. Rows come in
    /// storage order, or sorted into time order when the query asks for it; a store's own
    /// implementation may give them in any order unless asked for time order.
    public func scanningActorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        if query.inTimeOrder { return try query.sortingByTime(scanningActorEvents, each) }
        var numbers = try actorNumbers(for: query)
        try scan(EventScanQuery(filter: query.filter, kinds: query.kinds)) { e in
            guard let kind = query.kindIndex(type: e.type, name: e.name),
                let id = query.actor.sentID(user: e.user, device: e.device, session: e.session)
            else { return true }
            return each(ActorEvent(kind: kind, actor: numbers.number(appKey: e.appKey, id: id), time: e.time, seq: e.seq))
        }
    }

    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        try scanningActorEvents(query, each)
    }
}
