import CSQLite
import StoreSQL

/// `rollup_kind_events` in blocks (rollups layout 3, RollupPart.kinds): per event kind, its events in time order
/// (ties by `seq`), a run of up to `StoreTuning.kindEventBlockEntries` of them stored as one row: the key of its first
/// (`kind, first_ts, first_seq`), its last's time and seq, how many, and the entries packed in
/// one BLOB (`KindEventEntry.append`).
///
/// Why: a funnel or a retention table reads every event of a few kinds in a time range; with one
/// row per event SQLite's stepping would be most of its cost, and a block is one step for
/// hundreds of events, decoded here in a few nanoseconds each. The entries stay exact: blocks of one kind never overlap,
/// and a reader filters the entries of a block that crosses a bound of its range.
///
/// Writing (`add`): a chunk's events of one kind, sorted, go into the block that covers each
/// (the last whose first entry is not after it; before every block, the first). Entries after
/// the kind's last block are appended to it while it has room (its bytes extended, nothing
/// decoded), then fill new blocks; any other block that takes entries is decoded, merged and
/// written again, split into equal parts when past `StoreTuning.kindEventBlockEntries`.
enum KindEventBlocks {
    /// A stored block as the writer reads it.
    private struct Block {
        var firstTime: Int64
        var firstSeq: Int64
        var lastTime: Int64
        var lastSeq: Int64
        var count: Int
        var bytes: [UInt8]

        init(row r: SQLiteStatement) throws(SQLDecodingError) {
            firstTime = try r.decode("first_ts")
            firstSeq = try r.decode("first_seq")
            lastTime = try r.decode("last_ts")
            lastSeq = try r.decode("last_seq")
            count = try r.decode("entries")
            bytes = try r.decode("events")
        }
    }

    private static let columns = "first_ts, first_seq, last_ts, last_seq, entries, events"

    /// Adds `entries` (events of kind number `kind`, in any order) to the kind's blocks.
    static func add(_ entries: [KindEventEntry], kind: Int64, in db: SQLiteDatabase) throws(SQLiteError) {
        let new = entries.sorted(by: KindEventEntry.precedes)
        var i = 0
        while i < new.count {
            let e = new[i]
            // The block covering `e`: the last starting at or before it, else the kind's first.
            var covering = try db.first(Self.blockAtOrBefore, [.int(kind), .int(e.time), .int(e.seq)], Block.init(row:))
            if covering == nil { covering = try db.first(Self.firstBlock, [.int(kind)], Block.init(row:)) }
            guard let block = covering else {
                try insert(pieces(of: new[i...], last: true), kind: kind, in: db)
                return
            }
            // Its share: the entries before the next block's first.
            let next = try db.first(Self.nextBlock, [.int(kind), .int(block.firstTime), .int(block.firstSeq)]) {
                r throws(SQLDecodingError) in (time: try r.decode("first_ts", as: Int64.self), seq: try r.decode("first_seq", as: Int64.self))
            }
            var j = i + 1
            if let next { while j < new.count && (new[j].time, new[j].seq) < (next.time, next.seq) { j += 1 } } else { j = new.count }
            let share = new[i..<j]
            i = j
            if next == nil && (e.time, e.seq) > (block.lastTime, block.lastSeq) {
                // After every stored entry of the kind: appended.
                var last = block
                let room = max(0, StoreTuning.kindEventBlockEntries - last.count)
                let appended = share.prefix(room)
                if let end = appended.last {
                    KindEventEntry.append(appended, after: (last.lastTime, last.lastSeq), to: &last.bytes)
                    try db.run(
                        Self.appendToBlock,
                        rows: [
                            [.int(kind), .int(last.firstTime), .int(last.firstSeq)],
                            [.int(end.time), .int(end.seq), .int(Int64(last.count + appended.count)), .blob(last.bytes)],
                        ])
                }
                try insert(pieces(of: share.dropFirst(room), last: true), kind: kind, in: db)
                continue
            }
            // Among stored entries: the block is decoded, merged and written again.
            var merged: [KindEventEntry] = []
            merged.reserveCapacity(block.count + share.count)
            var old = try decode(block.bytes, count: block.count)[...]
            var added = share
            while let o = old.first, let a = added.first {
                if KindEventEntry.precedes(a, o) { merged.append(a); added.removeFirst() } else { merged.append(o); old.removeFirst() }
            }
            merged += old
            merged += added
            try db.run(Self.deleteBlock, rows: [[.int(kind), .int(block.firstTime), .int(block.firstSeq)]])
            try insert(pieces(of: merged[...], last: next == nil), kind: kind, in: db)
        }
    }

    // The writer's statements, run per kind of each chunk (`HotStatement`: no SQL text built per run).
    private static let blockAtOrBefore = HotStatement(
        "SELECT \(columns) FROM rollup_kind_events WHERE kind = ?1 AND (first_ts, first_seq) <= (?2, ?3) ORDER BY first_ts DESC, first_seq DESC LIMIT 1")
    private static let firstBlock = HotStatement("SELECT \(columns) FROM rollup_kind_events WHERE kind = ?1 ORDER BY first_ts, first_seq LIMIT 1")
    private static let nextBlock = HotStatement(
        "SELECT first_ts, first_seq FROM rollup_kind_events WHERE kind = ?1 AND (first_ts, first_seq) > (?2, ?3) ORDER BY first_ts, first_seq LIMIT 1")
    private static let blockKey = "kind = ?1 AND first_ts = ?2 AND first_seq = ?3"
    private static let appendToBlock = HotStatement(
        "UPDATE rollup_kind_events SET last_ts = ?4, last_seq = ?5, entries = ?6, events = ?7 WHERE \(blockKey)")
    private static let deleteBlock = HotStatement("DELETE FROM rollup_kind_events WHERE \(blockKey)")
    private static let insertBlock = HotStatement(
        "INSERT INTO rollup_kind_events (kind, first_ts, first_seq, last_ts, last_seq, entries, events) VALUES (?, ?, ?, ?, ?, ?, ?)")

    /// `entries` (sorted) cut into blocks of at most `StoreTuning.kindEventBlockEntries`: the kind's last ones full
    /// from the front (later events are appended to the rest), others in equal parts (room on
    /// either side for late ones).
    private static func pieces(of entries: ArraySlice<KindEventEntry>, last: Bool) -> [ArraySlice<KindEventEntry>] {
        guard !entries.isEmpty else { return [] }
        let size = StoreTuning.kindEventBlockEntries
        let parts = (entries.count + size - 1) / size
        var out: [ArraySlice<KindEventEntry>] = []
        var start = entries.startIndex
        for p in 0..<parts {
            let end = last ? min(start + size, entries.endIndex) : entries.startIndex + entries.count * (p + 1) / parts
            out.append(entries[start..<end])
            start = end
        }
        return out
    }

    /// Stores each of `blocks` (sorted entries each) as a new row.
    private static func insert(_ blocks: [ArraySlice<KindEventEntry>], kind: Int64, in db: SQLiteDatabase) throws(SQLiteError) {
        for b in blocks {
            guard let first = b.first, let last = b.last else { continue }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(b.count * 16)
            KindEventEntry.append(b, after: (0, 0), to: &bytes)
            try db.run(
                insertBlock, rows: [[.int(kind), .int(first.time), .int(first.seq), .int(last.time), .int(last.seq), .int(Int64(b.count)), .blob(bytes)]])
        }
    }

    /// The `count` entries packed in `bytes`.
    private static func decode(_ bytes: [UInt8], count: Int) throws(SQLiteError) -> [KindEventEntry] {
        var out: [KindEventEntry] = []
        out.reserveCapacity(count)
        let complete = bytes.withUnsafeBytes { b in
            var d = KindEventDecoder(b)
            var e = KindEventEntry()
            while d.next(&e) { out.append(e) }
            return d.complete
        }
        guard complete, out.count == count else { throw corrupt("a block of rollup_kind_events") }
        return out
    }

    /// The error of a block whose bytes do not hold what its row says.
    static func corrupt(_ what: String) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "\(what) is malformed; delete the rollups file (PATH-rollups) to have it refilled", sql: "")
    }

    /// Removes the entries of the app key `appKey` (every version: its `rollup_sources`
    /// numbers), block by block (a rebuild of that app from its first event).
    static func deleteEntries(ofAppKey appKey: String, in db: SQLiteDatabase) throws(SQLiteError) {
        let sources = try db.query("SELECT number FROM rollup_sources WHERE app_key = \(appKey)") {
            r throws(SQLDecodingError) in try r.decode("number", as: Int64.self)
        }
        guard let top = sources.max() else { return }
        let all = try db.scalar("SELECT COUNT(*) AS n FROM rollup_sources", as: Int.self) ?? 0
        if sources.count >= all {
            try db.run("DELETE FROM rollup_kind_events")
            return
        }
        var gone = [Bool](repeating: false, count: Int(top) + 1)
        for s in sources { gone[Int(s)] = true }
        // A page of blocks at a time in key order, each rewritten without those entries.
        var after: (kind: Int64, time: Int64, seq: Int64) = (.min, .min, .min)
        while true {
            let page = try db.query(
                """
                SELECT kind, \(raw: columns) FROM rollup_kind_events WHERE (kind, first_ts, first_seq) > (\(after.kind), \(after.time), \(after.seq))
                ORDER BY kind, first_ts, first_seq LIMIT 256
                """
            ) { r throws(SQLDecodingError) in (kind: try r.decode("kind", as: Int64.self), block: try Block(row: r)) }
            guard let last = page.last else { return }
            after = (last.kind, last.block.firstTime, last.block.firstSeq)
            for (kind, block) in page {
                let entries = try decode(block.bytes, count: block.count)
                let kept = entries.filter { e in e.source < 0 || e.source >= gone.count || !gone[Int(e.source)] }
                guard kept.count < entries.count else { continue }
                try db.run(deleteBlock, rows: [[.int(kind), .int(block.firstTime), .int(block.firstSeq)]])
                try insert([kept[...]], kind: kind, in: db)
            }
        }
    }
}

/// One event in a block of `rollup_kind_events`: its time and seq, its app key and version
/// (`rollup_sources`), and its actor as sent, device and session (`rollup_ids`; 0: none).
struct KindEventEntry: Equatable {
    var time: Int64 = 0
    var seq: Int64 = 0
    var source: Int64 = 0
    var actor: Int64 = 0
    var device: Int64 = 0
    var session: Int64 = 0

    /// Time order, ties by storage order: the order of a kind's blocks and of their entries.
    @inline(__always)
    static func precedes(_ a: KindEventEntry, _ b: KindEventEntry) -> Bool { a.time < b.time || (a.time == b.time && a.seq < b.seq) }

    /// Packs `entries` (sorted, each after `previous`'s time and seq) after `bytes`' entries:
    /// per entry six LEB128 varints: its time less the one before (never negative, as unsigned,
    /// wrapping: exact over every 64-bit time), its seq less the one before (zigzag: a later
    /// time may have a smaller seq), then source, actor, device, session. A block's first entry
    /// follows (0, 0). About 16 bytes an event, against 32 for a row of seven integers.
    static func append(_ entries: some Sequence<KindEventEntry>, after previous: (time: Int64, seq: Int64), to bytes: inout [UInt8]) {
        var time = previous.time, seq = previous.seq
        for e in entries {
            putVarint(UInt64(bitPattern: e.time &- time), &bytes)
            let d = e.seq &- seq
            putVarint(UInt64(bitPattern: (d << 1) ^ (d >> 63)), &bytes)
            putVarint(UInt64(bitPattern: e.source), &bytes)
            putVarint(UInt64(bitPattern: e.actor), &bytes)
            putVarint(UInt64(bitPattern: e.device), &bytes)
            putVarint(UInt64(bitPattern: e.session), &bytes)
            time = e.time
            seq = e.seq
        }
    }

    @inline(__always)
    private static func putVarint(_ value: UInt64, _ bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }
}

/// Reads a block's entries (`KindEventEntry.append`) one after the other from its bytes, in
/// place: no copy, nothing allocated.
struct KindEventDecoder {
    private var p: UnsafePointer<UInt8>?
    private let end: UnsafePointer<UInt8>?
    /// False once a varint ran past the end or an entry stopped halfway: the bytes are not a block's.
    private(set) var complete = true

    init(_ bytes: UnsafeRawBufferPointer) {
        p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        end = p.map { $0 + bytes.count }
    }

    /// Reads the next entry into `e` (its time and seq after `e`'s, the one before); false after
    /// the last (or at a malformed one: `complete` then is false).
    @inline(__always)
    mutating func next(_ e: inout KindEventEntry) -> Bool {
        guard let start = p, let end, start < end else { return false }
        var at = start
        guard let dt = Self.varint(&at, end), let ds = Self.varint(&at, end), let source = Self.varint(&at, end),
            let actor = Self.varint(&at, end), let device = Self.varint(&at, end), let session = Self.varint(&at, end)
        else {
            complete = false
            return false
        }
        p = at
        e.time = e.time &+ Int64(bitPattern: dt)
        e.seq = e.seq &+ (Int64(bitPattern: ds >> 1) ^ -Int64(bitPattern: ds & 1))
        e.source = Int64(bitPattern: source)
        e.actor = Int64(bitPattern: actor)
        e.device = Int64(bitPattern: device)
        e.session = Int64(bitPattern: session)
        return true
    }

    @inline(__always)
    private static func varint(_ p: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while p < end, shift < 64 {
            let b = p.pointee
            p += 1
            value |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return value }
            shift += 7
        }
        return nil
    }
}
