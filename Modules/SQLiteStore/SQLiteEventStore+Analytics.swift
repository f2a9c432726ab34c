public import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// The analytics' scan as one narrow query: twelve columns, no props, and, when `query` names
    /// kinds, only those. Rows come in `seq` order (the table's order), the same rows as the
    /// protocol's default over `events`.
    public func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError) {
        var extra: [SQLQuery] = []
        if !query.kinds.isEmpty {
            extra.append("(" + .joined(query.kinds.map { k in "(type = \(k.type) AND name = \(k.name))" }, separator: " OR ") + ")")
        }
        let filter = try zoned(query.filter)
        try readingAlone(
            "SELECT \(raw: ScannedEvent.columns) FROM events\(SQLQuery.where(filter.conditions() + extra)) ORDER BY seq"
        ) { r throws(SQLDecodingError) in
            each(try ScannedEvent(row: r))
        }
    }

    /// The analytics' actor rows (`ActorEventQuery`). Where they come from is chosen once per
    /// call (`rollupsCover`): `rollup_kind_events` (SQLiteEventStore+KindEvents.swift), or, while
    /// the filter's apps wait for their rollups to be rebuilt (after a migration or a prune),
    /// `events` (`actorEventsFromEvents`). Either way a merged device's rows count as its user's
    /// (`device_links`) when the actors are people.
    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        if try rollupsCover(query.filter) { return try actorEventsFromRollups(query, each) }
        let links = query.actor.mergesDevices ? try deviceLinks(appKey: query.filter.appKey) : .none
        if query.inTimeOrder { return try query.sortingByTime({ (q, e) throws(StoreError) in try actorEventsFromEvents(q, links, e) }, each) }
        try actorEventsFromEvents(query, links, each)
    }

    /// The analytics' rows with kinds chosen by selectors (`EventSelector`): from the rollups
    /// when they cover the filter (SelectedKinds.swift), else from `events`
    /// (`selectingActorEvents`).
    public func actorEvents<S: EventSelector>(
        _ query: ActorEventQuery, selecting selected: [(kind: Int, selector: S)], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        if selected.isEmpty { return try actorEvents(query, each) }
        guard try rollupsCover(query.filter) else { return try selectingActorEvents(query, selecting: selected, each) }
        try actorEventsFromRollups(query, selecting: selected.map { ($0.kind, $0.selector as any EventSelector) }, each)
    }

    /// True when the rollup tables hold every event `filter` selects, by kind and time (the
    /// version asked for is not the empty text, and no app of the filter waits in `rollup_backlog`).
    func rollupsCover(_ filter: EventFilter) throws(StoreError) -> Bool {
        filter.appVersion != "" ? !(try rollupsWait(appKey: filter.appKey)) : false
    }

    /// The rows from `events`, kind by kind (one query each, in time order; a time range read
    /// through the zone map),
    /// columns read raw (no `SQLValue`, no String per row), all from one snapshot (one read
    /// transaction). When every stored event has one app key (two index lookups tell), the app
    /// key is neither read nor compared. A NULL actor is skipped here (`bytes` is nil), not
    /// tested in SQL.
    private func actorEventsFromEvents(_ query: ActorEventQuery, _ links: DeviceLinks, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        try ingestCurrent()
        do throws(SQLiteError) {
            let db = try RollupFile.openReader(path)
            // Read pages with read(2), not through the readers' memory map: this index range is
            // a few thousand pages spread over the file, and a fresh map faults on each of them
            // and is unmapped at close.
            try db.execute("PRAGMA mmap_size = 0")
            try db.execute("BEGIN")
            defer { try? db.execute("COMMIT") }
            let onlyApp = try Self.singleAppKey(db)
            if let key = query.filter.appKey, let onlyApp, !key.utf8.elementsEqual(onlyApp.utf8) { return }
            // With one app key stored, the filter's key (if any) is that one: no condition.
            var filter = query.filter
            if onlyApp != nil { filter.appKey = nil }
            let conditions = try ZonedFilter(filter, db).conditions()
            var rows = ActorRowNumberer(numbers: ActorNumbers(merging: links))
            let fixedApp = onlyApp.map { key in
                var key = key
                return key.withUTF8 { rows.app(UnsafeRawBufferPointer($0)) }
            }
            var going = true
            for (kind, k) in query.kinds.enumerated() where going {
                let kindRows: SQLQuery = """
                    SELECT seq, corrected_ts, \(raw: query.actor.sentIDColumn) AS actor\(raw: onlyApp == nil ? ", app_key" : "") FROM events
                    \(SQLQuery.where(conditions + ["type = \(k.type)", "name = \(k.name)"])) ORDER BY corrected_ts
                    """
                try db.stream(kindRows) { s throws(SQLDecodingError) in
                    // By name in the columns' order: each name is found at the first place looked.
                    let seq = s.int64(try s.column("seq")), time = s.int64(try s.column("corrected_ts"))
                    guard let id = s.bytes(try s.column("actor")) else { return true }
                    let app: ActorNumbers.App
                    if let fixedApp {
                        app = fixedApp
                    } else {
                        app = rows.app(s.bytes(try s.column("app_key")) ?? UnsafeRawBufferPointer(start: nil, count: 0))
                    }
                    going = rows.add(kind: kind, app: app, id: id, time: time, seq: seq, each)
                    return going
                }
            }
            if going { _ = rows.flush(each) }
        } catch {
            throw error.storeError
        }
    }

    public func lastSequence() throws(StoreError) -> Int64? {
        try readScalar("SELECT MAX(seq) AS seq FROM events", as: Int64?.self) ?? nil
    }

    /// Streams `sql` on a read-only connection of its own: a long scan never holds up `append`
    /// (WAL lets it read while the writer commits), and `each` runs outside the store's lock.
    func readingAlone(_ query: SQLQuery, _ each: (SQLiteStatement) throws(SQLDecodingError) -> Bool) throws(StoreError) {
        guard isOpen else { throw StoreError(.closed, "the database \(path) was closed") }
        try ingestCurrent()
        do throws(SQLiteError) {
            let db = try RollupFile.openReader(path)
            try db.stream(query, each)
        } catch {
            throw error.storeError
        }
    }
}

extension SQLiteEventStore {
    /// The app key of every stored event in `db` when there is exactly one, else nil (none
    /// stored, or several): the first and last key of an index on `app_key`, two lookups.
    static func singleAppKey(_ db: SQLiteDatabase) throws(SQLiteError) -> String? {
        guard let first = try db.scalar("SELECT min(app_key) AS app_key FROM events", as: String?.self) ?? nil,
            let last = try db.scalar("SELECT max(app_key) AS app_key FROM events", as: String?.self) ?? nil,
            first.utf8.elementsEqual(last.utf8)  // bytes, as SQLite compares them (not String's ==)
        else { return nil }
        return first
    }
}
