import EventStore

extension PostgresEventStore {
    /// The analytics' actor rows (`ActorEventQuery`): four narrow columns per event of each kind,
    /// through a cursor (constant memory), kind by kind. Actors are numbered by their stored
    /// bytes: `PostgresText`'s escape is injective, so equal stored text is equal text.
    /// Time order (`ActorEventQuery.inTimeOrder`) sorts the rows read kind by kind.
    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        if query.inTimeOrder { return try query.sortingByTime(actorEvents, each) }
        let actor =
            switch query.actor {
            case .userElseDevice: "COALESCE(user_id, device_id)"
            case .device: "device_id"
            case .session: "session"
            }
        try withConnection(retryOnStale: true) { c throws(PostgresError) in
            var batch = ActorEventBatch()
            try c.transaction { () throws(PostgresError) in
                for (kind, k) in query.kinds.enumerated() {
                    var f = PostgresFilter(query.filter, table: "")
                    f.add("type = ?", PostgresText.encode(k.type))
                    f.add("name = ?", PostgresText.encode(k.name))
                    let sql = "SELECT seq, corrected_ts, app_key, \(actor) FROM events\(f.where("\(actor) IS NOT NULL"))"
                    try c.execute("DECLARE autotrack_actor_events NO SCROLL CURSOR FOR \(sql)", f.parameters)
                    while true {
                        let page = try c.execute("FETCH 1000 FROM autotrack_actor_events").rows
                        for r in page {
                            var appKey = r[2] ?? "", id = r[3] ?? ""
                            let app = appKey.withUTF8 { batch.app(UnsafeRawBufferPointer($0)) }
                            let going = id.withUTF8 {
                                batch.add(
                                    kind: kind, app: app, id: UnsafeRawBufferPointer($0), time: r[1].flatMap { Int64($0) } ?? 0,
                                    seq: r[0].flatMap { Int64($0) } ?? 0, each)
                            }
                            if !going { return }
                        }
                        if page.count < 1000 { break }
                    }
                    try c.execute("CLOSE autotrack_actor_events")
                }
                _ = batch.flush(each)
            }
        }
    }
}
