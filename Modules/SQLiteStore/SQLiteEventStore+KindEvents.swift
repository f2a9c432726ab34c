import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// `actorEvents` from `rollup_kind_events` (kept by the rollup worker), when the rollups
    /// cover the filter (`rollupsCover`): per kind one range of its blocks (KindEventBlocks.swift),
    /// each a run of the kind's events in time order, ties by storage order, decoded in place; a
    /// block that crosses a bound of the filter's range is filtered per entry. No text is read or
    /// hashed: actors are numbers already (`rollup_ids`, the actor as sent); a merged device's
    /// number is read as its user's (`mergedIDNumbers`), and numbers are renumbered densely in
    /// order of first appearance, as the protocol says, through one table (`LocalNumbers`).
    ///
    /// A kind of `selected` stands for the events its selector selects (`SelectedKinds`): the
    /// blocks of the stored kinds of its type whose events it selects all of (per app and
    /// version), and from `events` those of the kinds it selects only some of.
    func actorEventsFromRollups(
        _ query: ActorEventQuery, selecting selected: [(kind: Int, selector: any EventSelector)] = [], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        let filter = query.filter
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        try ingestCurrent()
        do throws(SQLiteError) {
            let db = try RollupFile.openReader(path)
            // Pages through read(2): a fresh map faults on each page and is unmapped at close.
            try db.execute("PRAGMA mmap_size = 0")
            try db.execute("BEGIN")  // one snapshot for every kind
            defer { try? db.execute("COMMIT") }
            // The selected kinds' plan first: its first read fixes the kinds file's snapshot
            // before the others' (SelectedKinds.swift).
            var plan = selected.isEmpty ? nil : try SelectedKinds(selected, query.filter, in: db)
            let allowed: [Bool]?
            switch try Self.sourcesKept(by: filter, in: db) {
            case .none: return
            case .all: allowed = nil
            case .some(let keep): allowed = keep
            }
            let ids = try db.scalar("SELECT COALESCE(MAX(number), 0) AS n FROM rollup_ids", as: Int.self) ?? 0
            let merged = query.actor.mergesDevices ? try mergedIDNumbers(appKey: filter.appKey, in: db) : []
            var reads: [KindRead] = []
            let isSelected = Set(selected.map(\.kind))
            for (i, k) in query.kinds.enumerated() where !isSelected.contains(i) {
                if let number = try Self.kindNumber(k, in: db) { reads.append(KindRead(kind: i, number: number, keep: allowed)) }
            }
            reads += plan?.blockReads(keeping: allowed) ?? []
            let cursors = try reads.indices.map { i throws(SQLiteError) in try Self.kindCursor(reads[i], position: i, query.filter, in: db) }
            defer { for c in cursors { c.statement.reset() } }
            var numbers = LocalNumbers(stored: ids, merged: merged)
            defer { numbers.free() }
            let range = EntryRange(filter)
            // One kind's rows alone are in time order already.
            if !query.inTimeOrder || (cursors.count <= 1 && plan == nil) {
                for c in cursors {
                    if !(try Self.read(c, query.actor, range, keep: c.keep, &numbers, each)) { return }
                }
                _ = try plan?.readEvents(query, in: db, &numbers, each)
                return
            }
            // Merged in time order, ties by seq: each kind's rows already are. Each kind is read
            // whole first (one cursor at a time keeps SQLite's pages and ours in cache),
            // then the kinds' rows are merged (`ActorEvent.merge`).
            var rows: [[ActorEvent]] = []
            for c in cursors {
                var kindRows: [ActorEvent] = []
                _ = try Self.read(c, query.actor, range, keep: c.keep, &numbers) { e in
                    kindRows.append(e)
                    return true
                }
                rows.append(kindRows)
            }
            if plan != nil {
                var selectedRows: [ActorEvent] = []
                _ = try plan!.readEvents(query, in: db, &numbers) { e in
                    selectedRows.append(e)
                    return true
                }
                selectedRows.sort(by: ActorEvent.precedes)
                rows.append(selectedRows)
            }
            _ = ActorEvent.merge(rows, each)
        } catch {
            throw error.storeError
        }
    }

    /// The time range of a filter, as the entries of a block are compared with it.
    private struct EntryRange {
        var since: Int64
        var until: Int64?

        init(_ filter: EventFilter) {
            since = filter.since ?? .min
            until = filter.until
        }

        /// True when every time from `first` to `last` is in the range: the block's entries
        /// need no comparison.
        @inline(__always)
        func holds(from first: Int64, to last: Int64) -> Bool { first >= since && (until.map { last < $0 } ?? true) }

        @inline(__always)
        func contains(_ time: Int64) -> Bool { time >= since && (until.map { time < $0 } ?? true) }
    }

    /// Hands `each` the events of `c`'s blocks in the range with an actor (0: none) whose app
    /// `keep` keeps (nil: every app), in the blocks' order, until it returns false (then false).
    @inline(__always)
    private static func read(
        _ c: KindCursor, _ actor: ActorKind, _ range: EntryRange, keep: [Bool]?, _ numbers: inout LocalNumbers, _ each: (ActorEvent) -> Bool
    ) throws(SQLiteError) -> Bool {
        let s = c.statement
        while try s.step() {
            let inside = range.holds(from: s.int64(c.firstTime), to: s.int64(c.lastTime))
            var decoder = KindEventDecoder(s.blob(c.events))
            var e = KindEventEntry()
            var decoded: Int64 = 0
            while decoder.next(&e) {
                decoded += 1
                if !inside && !range.contains(e.time) { continue }
                let stored =
                    switch actor {
                    case .user: e.actor
                    case .device: e.device
                    case .session: e.session
                    }
                if stored <= 0 { continue }
                if let keep {
                    let app = Int(e.source)
                    if app < 0 || app >= keep.count || !keep[app] { continue }
                }
                if !each(ActorEvent(kind: c.kind, actor: numbers.number(Int(stored)), time: e.time, seq: e.seq)) { return false }
            }
            guard decoder.complete, decoded == s.int64(c.entries) else {
                throw KindEventBlocks.corrupt("a block of rollup_kind_events (kind \(c.number))")
            }
        }
        return true
    }

    /// Which app keys and versions (`rollup_sources` numbers) a filter keeps.
    private enum SourcesKept {
        /// None stored: nothing to read.
        case none
        /// Every one stored: no row needs the check.
        case all
        /// Those whose number is true.
        case some([Bool])
    }

    private static func sourcesKept(by filter: EventFilter, in db: SQLiteDatabase) throws(SQLiteError) -> SourcesKept {
        guard filter.appKey != nil || filter.appVersion != nil else { return .all }
        var conditions: [SQLQuery] = []
        if let k = filter.appKey { conditions.append("app_key = \(k)") }
        if let v = filter.appVersion { conditions.append("app_version = \(v)") }
        let numbers = try db.query("SELECT number FROM rollup_sources\(SQLQuery.where(conditions))") {
            r throws(SQLDecodingError) in try r.decode("number", as: Int64.self)
        }
        guard let top = numbers.max() else { return .none }
        let all = try db.scalar("SELECT COUNT(*) AS n FROM rollup_sources", as: Int64.self) ?? 0
        if Int64(numbers.count) >= all { return .all }
        var keep = [Bool](repeating: false, count: Int(top) + 1)
        for n in numbers { keep[Int(n)] = true }
        return .some(keep)
    }

    /// One kind's blocks of `rollup_kind_events` to read for the query's kind `kind`, of the app
    /// keys and versions (`rollup_sources` numbers) `keep` keeps (nil: every one).
    struct KindRead {
        var kind: Int
        /// The stored kind's `rollup_kinds` number.
        var number: Int64
        var keep: [Bool]?
    }

    /// A `KindRead`'s blocks, and where the statement holds each column (looked up by name
    /// once, before the blocks are stepped).
    private struct KindCursor {
        var kind: Int
        /// The kind's `rollup_kinds` number.
        var number: Int64
        var keep: [Bool]?
        var statement: SQLiteStatement
        var firstTime: Int32
        var lastTime: Int32
        var events: Int32
        var entries: Int32
    }

    /// The `rollup_kinds` number of `kind`, nil when none of its events is stored.
    static func kindNumber(_ kind: EventKind, in db: SQLiteDatabase) throws(SQLiteError) -> Int64? {
        try db.scalar("SELECT number FROM rollup_kinds WHERE type = \(kind.type) AND name = \(kind.name)", as: Int64.self)
    }

    /// The statement of one read (the cache is keyed by text, hence the read's `position` among
    /// the call's in a comment) over the blocks that may hold events of the filter's time range: from the
    /// last block starting before `since` (it may reach past it) to the last starting before `until`.
    private static func kindCursor(_ read: KindRead, position: Int, _ filter: EventFilter, in db: SQLiteDatabase) throws(SQLiteError)
        -> KindCursor
    {
        let number = read.number
        var range: SQLQuery = ""
        if let since = filter.since {
            range.append(
                """
                 AND first_ts >= COALESCE((SELECT MAX(first_ts) FROM rollup_kind_events WHERE kind = \(number) AND first_ts < \(since)), \(since))
                """)
        }
        if let until = filter.until { range.append(" AND first_ts < \(until)") }
        let s = try db.prepared(
            """
            SELECT first_ts, last_ts, entries, events FROM rollup_kind_events
            WHERE kind = \(number)\(range) ORDER BY first_ts, first_seq /* \(raw: String(position)) */
            """)
        do throws(SQLDecodingError) {
            return KindCursor(
                kind: read.kind, number: number, keep: read.keep, statement: s, firstTime: try s.column("first_ts"),
                lastTime: try s.column("last_ts"), events: try s.column("events"), entries: try s.column("entries"))
        } catch {
            throw SQLiteError(code: SQLiteCode.mismatch, message: error.description, sql: s.sql)
        }
    }
}

/// Numbers stored id numbers (`rollup_ids`) densely from 0 in order of first appearance, a
/// merged device's number read as its user's (`mergedIDNumbers`), through one table indexed by
/// the stored number: allocated once per call (no uniqueness check or copy per row), freed with
/// `free`.
struct LocalNumbers {
    private var local: UnsafeMutableBufferPointer<Int32>
    /// Per stored number of a merged device its user's stored number, −1 for any other.
    private let merged: [Int32]
    private var next: Int32 = 0

    /// `stored`: the largest stored number expected (a larger one grows the table).
    init(stored: Int, merged: [Int32]) {
        local = .allocate(capacity: stored + 1)
        local.initialize(repeating: -1)
        self.merged = merged
    }

    @inline(__always)
    mutating func number(_ stored: Int) -> Int {
        var stored = stored
        if stored < merged.count, merged[stored] >= 0 { stored = Int(merged[stored]) }
        if stored >= local.count { grow(to: stored + 1) }
        if local[stored] < 0 {
            local[stored] = next
            next += 1
        }
        return Int(local[stored])
    }

    private mutating func grow(to count: Int) {
        let larger = UnsafeMutableBufferPointer<Int32>.allocate(capacity: count)
        larger.initialize(repeating: -1)
        _ = larger.update(fromContentsOf: local)
        local.deallocate()
        local = larger
    }

    func free() { local.deallocate() }
}
