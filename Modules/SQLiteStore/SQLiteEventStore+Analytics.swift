import EventStore

extension SQLiteEventStore {
    /// The analytics' scan as one narrow query: twelve columns, no props, and, when `query` names
    /// kinds, only those. Rows come in `seq` order (the table's order), the same rows as the
    /// protocol's default over `events`.
    public func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError) {
        let f = EventFilterSQL(query.filter, table: "")
        var parameters = f.parameters
        var extra: [String] = []
        if !query.kinds.isEmpty {
            extra.append("(" + query.kinds.map { _ in "(type = ? AND name = ?)" }.joined(separator: " OR ") + ")")
            for k in query.kinds { parameters += [.text(k.type), .text(k.name)] }
        }
        let sql = """
            SELECT seq, app_key, corrected_ts, type, name, page, path, session, user_id, device_id, duration, app_version
            FROM events\(f.where(extra)) ORDER BY seq
            """
        try readingAlone(sql, parameters) { r in
            each(
                ScannedEvent(
                    seq: r[0].int ?? 0, appKey: r[1].text ?? "", appVersion: r[11].text, time: r[2].int ?? 0, type: r[3].text ?? "", name: r[4].text ?? "",
                    page: r[5].text, path: r[6].text, session: r[7].text, user: r[8].text, device: r[9].text, duration: r[10].int))
        }
    }

    /// The analytics' actor rows (`ActorEventQuery`): from `rollup_kind_events`
    /// (SQLiteEventStore+KindEvents.swift) when the rollups can answer. While the filter's apps
    /// wait for their rollups to be rebuilt (after a migration or a prune), as here: one query
    /// per kind over the table, each in time order (sorted by SQLite), columns read raw (no
    /// `SQLiteValue`, no String per row), rows kind by kind or merged in time order when the
    /// query asks (`mergeInTimeOrder`), all from one snapshot (one read transaction). When every
    /// stored event has one app key (two index lookups tell), the app key is neither read nor
    /// compared. A NULL actor is skipped here (`bytes` is nil), not tested in SQL.
    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        // The integer rows kept by the rollups (schema 5), unless the filter's apps wait for them.
        if try actorEventsFromRollups(query, each) { return }
        let actor =
            switch query.actor {
            case .userElseDevice: "COALESCE(user_id, device_id)"
            case .device: "device_id"
            case .session: "session"
            }
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            // Read pages with read(2), not through the readers' memory map: this index range is
            // a few thousand pages spread over the file, and a fresh map faults on each of them
            // and is unmapped at close (measured: the funnel's rows 20–40 % faster without it).
            try db.execute("PRAGMA mmap_size = 0")
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let onlyApp = try db.singleAppKey()
            if let key = query.filter.appKey, let onlyApp, !key.utf8.elementsEqual(onlyApp.utf8) { return }
            // With one app key stored, the filter's key (if any) is that one: no condition.
            var filter = query.filter
            if onlyApp != nil { filter.appKey = nil }
            let f = EventFilterSQL(filter, table: "")
            let sql = """
                SELECT seq, corrected_ts, \(actor)\(onlyApp == nil ? ", app_key" : "") FROM events
                \(f.where(["type = ?", "name = ?"])) ORDER BY corrected_ts
                """
            var batch = ActorEventBatch()
            let fixedApp = onlyApp.map { key in
                var key = key
                return key.withUTF8 { batch.app(UnsafeRawBufferPointer($0)) }
            }
            if query.inTimeOrder {
                if try mergeInTimeOrder(db, sql, f.parameters, query.kinds, fixedApp, &batch, each) { _ = batch.flush(each) }
                return
            }
            var going = true
            for (kind, k) in query.kinds.enumerated() where going {
                try db.streamStatement(sql, f.parameters + [.text(k.type), .text(k.name)]) { s in
                    guard let id = s.bytes(2) else { return true }
                    let app = fixedApp ?? batch.app(s.bytes(3) ?? UnsafeRawBufferPointer(start: nil, count: 0))
                    going = batch.add(kind: kind, app: app, id: id, time: s.int64(1), seq: s.int64(0), each)
                    return going
                }
            }
            if going { _ = batch.flush(each) }
        } catch {
            throw error.storeError
        }
    }

    /// The rows of `kinds` in time order (`ActorEventQuery.inTimeOrder`): one statement per
    /// kind, each in time order through the index, stepped together, always the earliest first.
    /// When rows of several kinds share a time, that time's rows are gathered and put in seq
    /// order (within a kind the index orders them by app key and actor, not by seq). False when
    /// `each` stopped.
    private func mergeInTimeOrder(
        _ db: SQLiteDatabase, _ sql: String, _ parameters: [SQLiteValue], _ kinds: [EventKind], _ fixedApp: ActorNumbering.App?,
        _ batch: inout ActorEventBatch, _ each: (ActorEvent) -> Bool
    ) throws(SQLiteError) -> Bool {
        var cursors: [SQLiteStatement] = []
        defer { for c in cursors { c.reset() } }
        // Per kind, the time of its current row, and whether it has one.
        var heads: [Int64] = []
        var live: [Bool] = []
        for (kind, k) in kinds.enumerated() {
            // The statement cache is keyed by SQL: one statement per kind needs one text per kind.
            let s = try db.statement(sql + " /* kind \(kind) */")
            cursors.append(s)
            try s.bind(parameters + [.text(k.type), .text(k.name)])
            live.append(try s.step())
            heads.append(live[kind] ? s.int64(1) : 0)
        }
        // One time's rows (the first `count` of `group`): kind, app, where the id's bytes lie in
        // `ids`, seq. The ids are copied: a statement's next step frees its row's bytes.
        var group: [(kind: Int, app: ActorNumbering.App, offset: Int, count: Int, seq: Int64)] = []
        var count = 0
        var ids = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { ids.deallocate() }
        let app = { (s: SQLiteStatement, batch: inout ActorEventBatch) in
            fixedApp ?? batch.app(s.bytes(3) ?? UnsafeRawBufferPointer(start: nil, count: 0))
        }
        while true {
            // The kind with the earliest row, whether another kind has a row of that time, and
            // the earliest time of the other kinds.
            var first = -1
            var time = Int64.max
            var tied = false
            var others = Int64.max
            for k in heads.indices where live[k] {
                if first < 0 || heads[k] < time {
                    if first >= 0 { others = time }
                    (first, time, tied) = (k, heads[k], false)
                } else {
                    tied = tied || heads[k] == time
                    others = min(others, heads[k])
                }
            }
            guard first >= 0 else { return true }
            if !tied {
                // The common case: this kind's rows before any other kind's are handed on as
                // they are read. Rows of one kind and one time may come in any order.
                let s = cursors[first]
                repeat {
                    if let id = s.bytes(2) {
                        if !batch.add(kind: first, app: app(s, &batch), id: id, time: heads[first], seq: s.int64(0), each) { return false }
                    }
                    live[first] = try s.step()
                    if live[first] { heads[first] = s.int64(1) }
                } while live[first] && heads[first] < others
                continue
            }
            count = 0
            var used = 0
            for kind in heads.indices where live[kind] && heads[kind] == time {
                let s = cursors[kind]
                repeat {
                    if let id = s.bytes(2) {
                        if used + id.count > ids.count {
                            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * (used + id.count), alignment: 8)
                            larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: ids[..<used]))
                            ids.deallocate()
                            ids = larger
                        }
                        if !id.isEmpty { (ids.baseAddress! + used).copyMemory(from: id.baseAddress!, byteCount: id.count) }
                        let row = (kind, app(s, &batch), used, id.count, s.int64(0))
                        if count < group.count { group[count] = row } else { group.append(row) }
                        count += 1
                        used += id.count
                    }
                    live[kind] = try s.step()
                    if live[kind] { heads[kind] = s.int64(1) }
                } while live[kind] && heads[kind] == time
            }
            if count > 1 { group[..<count].sort { $0.seq < $1.seq } }
            for g in group[..<count] {
                let id = UnsafeRawBufferPointer(rebasing: ids[g.offset..<g.offset + g.count])
                if !batch.add(kind: g.kind, app: g.app, id: id, time: time, seq: g.seq, each) { return false }
            }
        }
    }

    public func lastSequence() throws(StoreError) -> Int64? {
        try read("SELECT MAX(seq) FROM events").first?.first?.int
    }

    /// Streams `sql` on a read-only connection of its own: a long scan never holds up `append`
    /// (WAL lets it read while the writer commits), and `each` runs outside the store's lock.
    func readingAlone(_ sql: String, _ parameters: [SQLiteValue], _ each: ([SQLiteValue]) -> Bool) throws(StoreError) {
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            try db.stream(sql, parameters, each)
        } catch {
            throw error.storeError
        }
    }
}

extension SQLiteDatabase {
    /// The app key of every stored event when there is exactly one, else nil (none stored, or
    /// several): the first and last key of an index on `app_key`, two lookups.
    func singleAppKey() throws(SQLiteError) -> String? {
        guard let first = try query("SELECT min(app_key) FROM events").first?.first?.text,
            let last = try query("SELECT max(app_key) FROM events").first?.first?.text,
            first.utf8.elementsEqual(last.utf8)  // bytes, as SQLite compares them (not String's ==)
        else { return nil }
        return first
    }
}

extension EventFilterSQL {
    /// ` WHERE …` over the filter's conditions and `extra`, or nothing.
    func `where`(_ extra: [String]) -> String {
        let all = conditions + extra
        return all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
    }
}
