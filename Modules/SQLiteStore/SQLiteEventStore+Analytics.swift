import EventStore

extension SQLiteEventStore {
    /// The analytics' scan as one narrow query: twelve columns, no props, and, when `query` names
    /// kinds, only those (index `events_kind_actor`, schema version 4). Rows come in `seq` order,
    /// the same rows as the protocol's default over `events`.
    public func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError) {
        let f = EventFilterSQL(query.filter, table: "")
        var parameters = f.parameters
        var extra: [String] = []
        if !query.kinds.isEmpty {
            extra.append("(" + query.kinds.map { _ in "(type = ? AND name = ?)" }.joined(separator: " OR ") + ")")
            for k in query.kinds { parameters += [.text(k.type), .text(k.name)] }
        }
        // A kinds query reads only its kinds through `events_kind_actor` (one index search per
        // kind) and sorts those rows; left to itself the planner picks the app key's time index
        // and visits every row of the app (measured: slower than the whole table).
        let source = query.kinds.isEmpty ? "events" : "events INDEXED BY events_kind_actor"
        let sql = """
            SELECT seq, app_key, corrected_ts, type, name, page, path, session, user_id, device_id, duration, app_version
            FROM \(source)\(f.where(extra)) ORDER BY \(query.kinds.isEmpty ? "seq" : "+seq")
            """
        try readingAlone(sql, parameters) { r in
            each(
                ScannedEvent(
                    seq: r[0].int ?? 0, appKey: r[1].text ?? "", appVersion: r[11].text, time: r[2].int ?? 0, type: r[3].text ?? "", name: r[4].text ?? "",
                    page: r[5].text, path: r[6].text, session: r[7].text, user: r[8].text, device: r[9].text, duration: r[10].int))
        }
    }

    /// The analytics' actor rows (`ActorEventQuery`) as one index range per kind: index
    /// `events_kind_actor` (schema version 4) holds every column read, so no table row is
    /// visited, and columns are read raw (no `SQLiteValue`, no String per row). Rows come kind
    /// by kind, each in time order.
    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        let f = EventFilterSQL(query.filter, table: "")
        let actor =
            switch query.actor {
            case .userElseDevice: "COALESCE(user_id, device_id)"
            case .device: "device_id"
            case .session: "session"
            }
        let sql = """
            SELECT seq, corrected_ts, app_key, \(actor) FROM events INDEXED BY events_kind_actor
            \(f.where(["type = ?", "name = ?", "\(actor) IS NOT NULL"]))
            """
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        var numbering = ActorNumbering()
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            for (kind, k) in query.kinds.enumerated() {
                var going = true
                try db.streamStatement(sql, f.parameters + [.text(k.type), .text(k.name)]) { s in
                    let number = numbering.number(appKey: s.bytes(2), id: s.bytes(3))
                    going = each(ActorEvent(kind: kind, actor: number, time: s.int64(1), seq: s.int64(0)))
                    return going
                }
                if !going { return }
            }
        } catch {
            throw error.storeError
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

extension EventFilterSQL {
    /// ` WHERE …` over the filter's conditions and `extra`, or nothing.
    func `where`(_ extra: [String]) -> String {
        let all = conditions + extra
        return all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
    }
}
