public import EventStore
import StoreSQL

extension PostgresEventStore {
    /// The analytics' actor rows (`ActorEventQuery`): four narrow columns per event of each kind,
    /// through a cursor (constant memory), kind by kind. Actors are numbered by their stored
    /// bytes: `PostgresText`'s escape is injective, so equal stored text is equal text.
    /// Time order (`ActorEventQuery.inTimeOrder`) sorts the rows read kind by kind. A merged
    /// device's rows count as its user's (`device_links`) when the actors are people.
    public func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError) {
        if query.inTimeOrder { return try query.sortingByTime(actorEvents, each) }
        let actor = query.actor.sentIDColumn
        // Rows are numbered by their stored (escaped) bytes: so are the merged devices.
        let links = query.actor.mergesDevices ? try deviceLinks(appKey: query.filter.appKey) : .none
        let numbers = ActorNumbers(merging: DeviceLinks(links.stored))
        try withConnection(retryOnStale: true) { c throws(PostgresError) in
            var batch = ActorRowNumberer(numbers: numbers)
            try c.transaction { () throws(PostgresError) in
                for (kind, k) in query.kinds.enumerated() {
                    let conditions = query.filter.postgresWhere(
                        "type = \(PostgresText.encode(k.type))", "name = \(PostgresText.encode(k.name))", "\(raw: actor) IS NOT NULL")
                    try c.execute(
                        "DECLARE autotrack_actor_events NO SCROLL CURSOR FOR SELECT seq, corrected_ts, app_key, \(raw: actor) AS actor FROM events\(conditions)")
                    while true {
                        let page = try c.execute("FETCH 1000 FROM autotrack_actor_events")
                        let going = try page.readEach { r throws(SQLDecodingError) -> Bool in
                            // The stored (escaped) bytes: equal stored text is equal text.
                            var appKey = try r.stored("app_key") ?? "", id = try r.stored("actor") ?? ""
                            let app = appKey.withUTF8 { batch.app(UnsafeRawBufferPointer($0)) }
                            let time: Int64 = try r["corrected_ts"], seq: Int64 = try r["seq"]
                            return id.withUTF8 { batch.add(kind: kind, app: app, id: UnsafeRawBufferPointer($0), time: time, seq: seq, each) }
                        }
                        if !going { return }
                        if page.count < 1000 { break }
                    }
                    try c.execute("CLOSE autotrack_actor_events")
                }
                _ = batch.flush(each)
            }
        }
    }
}
