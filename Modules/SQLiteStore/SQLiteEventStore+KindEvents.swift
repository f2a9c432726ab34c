import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// `actorEvents` from `rollup_kind_events` (schema 5, kept by every append), when the rollups
    /// cover the filter (`rollupsCover`): per kind one range of its primary key `(kind, ts, seq)`,
    /// rows of seven integers, so rows come in time order, ties by storage order, and no text is
    /// read or hashed. Actors are numbers already (`rollup_ids`, the actor as sent); a merged
    /// device's number is read as its user's (`mergedIDNumbers`), and numbers are renumbered densely in
    /// order of first appearance, as the protocol says, through one table (`LocalNumbers`).
    func actorEventsFromRollups(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        let filter = query.filter
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            // Pages through read(2): a fresh map faults on each page and is unmapped at close
            // (measured: the funnel's rows slower mapped, as for the index path).
            try db.execute("PRAGMA mmap_size = 0")
            try db.execute("BEGIN")  // one snapshot for every kind
            defer { try? db.execute("COMMIT") }
            let allowed: [Bool]?
            switch try Self.sourcesKept(by: filter, in: db) {
            case .none: return
            case .all: allowed = nil
            case .some(let keep): allowed = keep
            }
            let ids = try db.scalar("SELECT COALESCE(MAX(number), 0) AS n FROM rollup_ids", as: Int.self) ?? 0
            let merged = query.actor.mergesDevices ? try mergedIDNumbers(appKey: filter.appKey, in: db) : []
            let cursors = try Self.kindCursors(query, withSource: allowed != nil, in: db)
            defer { for c in cursors { c.statement.reset() } }
            var numbers = LocalNumbers(stored: ids, merged: merged)
            defer { numbers.free() }
            if !query.inTimeOrder || cursors.count <= 1 {
                for c in cursors {
                    while let e = try Self.nextRow(c, keep: allowed, &numbers) {
                        if !each(e) { return }
                    }
                }
                return
            }
            // Merged in time order, ties by seq: each kind's rows already are. Each kind is read
            // whole first (one cursor at a time keeps SQLite's pages and ours in cache; stepping
            // the cursors side by side and counting the funnel as rows came measured slower),
            // then the kinds' rows are merged (`ActorEvent.merge`).
            var rows: [[ActorEvent]] = []
            for c in cursors {
                var kindRows: [ActorEvent] = []
                while let e = try Self.nextRow(c, keep: allowed, &numbers) { kindRows.append(e) }
                rows.append(kindRows)
            }
            _ = ActorEvent.merge(rows, each)
        } catch {
            throw error.storeError
        }
    }

    /// Steps `c` to its next row with an actor (NULL reads as 0; ids are numbered from 1) whose
    /// app `keep` keeps (nil: every app), as an event; nil after its last row. Columns by
    /// position, read straight into the event.
    @inline(__always)
    private static func nextRow(_ c: KindCursor, keep: [Bool]?, _ numbers: inout LocalNumbers) throws(SQLiteError) -> ActorEvent? {
        let s = c.statement
        while try s.step() {
            let stored = Int(s.int64(c.actor))
            if stored == 0 { continue }
            if let keep, let source = c.source {
                let app = Int(s.int64(source))
                if app >= keep.count || !keep[app] { continue }
            }
            return ActorEvent(kind: c.kind, actor: numbers.number(stored), time: s.int64(c.time), seq: s.int64(c.seq))
        }
        return nil
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

    /// One kind's rows of `rollup_kind_events`, and where the statement holds each column (looked
    /// up by name once, before the rows are stepped).
    private struct KindCursor {
        var kind: Int
        var statement: SQLiteStatement
        var time: Int32
        var seq: Int32
        var actor: Int32
        /// Nil when the app's number is not read.
        var source: Int32?
    }

    /// One statement per stored kind of the query (stepped together when merging: the cache is
    /// keyed by text, hence the kind's position in a comment), bound to the filter's time range,
    /// reading `ts, seq`, the actor column and, `withSource`, the app's number.
    private static func kindCursors(_ query: ActorEventQuery, withSource: Bool, in db: SQLiteDatabase) throws(SQLiteError) -> [KindCursor] {
        let column =
            switch query.actor {
            case .user: "actor"
            case .device: "device"
            case .session: "session"
            }
        var range: SQLQuery = ""
        if let since = query.filter.since { range.append(" AND ts >= \(since)") }
        if let until = query.filter.until { range.append(" AND ts < \(until)") }
        var cursors: [KindCursor] = []
        for (i, k) in query.kinds.enumerated() {
            guard
                let number = try db.scalar("SELECT number FROM rollup_kinds WHERE type = \(k.type) AND name = \(k.name)", as: Int64.self)
            else { continue }
            // `source` only when some app key or version is left out: a column less per row.
            let s = try db.prepared(
                """
                SELECT ts, seq, \(raw: column) AS actor\(raw: withSource ? ", source" : "") FROM rollup_kind_events
                WHERE kind = \(number)\(range) /* \(raw: String(i)) */
                """)
            do throws(SQLDecodingError) {
                cursors.append(
                    KindCursor(
                        kind: i, statement: s, time: try s.column("ts"), seq: try s.column("seq"), actor: try s.column("actor"),
                        source: withSource ? try s.column("source") : nil))
            } catch {
                throw SQLiteError(code: SQLiteCode.mismatch, message: error.description, sql: s.sql)
            }
        }
        return cursors
    }
}

/// Numbers stored id numbers (`rollup_ids`) densely from 0 in order of first appearance, a
/// merged device's number read as its user's (`mergedIDNumbers`), through one table indexed by
/// the stored number: allocated once per call (no uniqueness check or copy per row), freed with
/// `free`.
private struct LocalNumbers {
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
