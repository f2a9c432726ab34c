import EventStore
import StoreSQL

/// How `actorEventsFromRollups` reads the kinds of a query that stand for the events a selector
/// selects (`EventSelector`: a definition's events, `rule:ID` steps). `rollup_kind_events` keeps
/// no paths nor titles, but `rollup_events` keeps them with each kind: per stored kind of the
/// selector's type and per app key and version (`rollup_sources`), the selector is asked about
/// every path and title that kind has in the days of the range (`EventSelector.selection`).
/// Where it selects all of them, the kind's blocks are read for those apps and versions; where
/// none, nothing; where some (or it depends on a value), that kind's events are read from
/// `events`, matched one by one, and numbered as the blocks' (their `rollup_ids` numbers). So
/// the answer is the one `events` gives, and a definition that covers whole kinds reads no event.
///
/// One snapshot: the plan is made first in the reader's transaction, its first read the kinds
/// file's watermark, so every event the blocks hold is in the snapshots of the other files read
/// after it. The paths and titles come from `rollup_events` up to the pages file's watermark and,
/// when the blocks are ahead of it, from the events between the two; events are read only up to
/// the blocks' watermark, so every row comes from the same events.
struct SelectedKinds {
    private var selected: [(kind: Int, selector: any EventSelector)]
    /// The kinds file's watermark: its blocks hold every event up to it.
    private let blocksThrough: Int64
    /// The `rollup_sources` numbers by app key and version (none as '').
    private let sources: [SourceKey: Int64]
    /// Per selector, per stored kind of its type (`rollup_kinds` number, with its name), the
    /// selection per source; `.byValue` also where the kind's events of one source differ.
    private var plans: [[Int64: (name: String, bySource: [Int64: EventSelection])]]

    init(_ selected: [(kind: Int, selector: any EventSelector)], _ filter: EventFilter, in db: SQLiteDatabase) throws(SQLiteError) {
        var selectors = selected
        blocksThrough = try db.scalar("SELECT seq FROM \(raw: RollupPart.kinds.watermark)", as: Int64.self) ?? 0
        let pagesThrough = try db.scalar("SELECT seq FROM \(raw: RollupPart.pages.watermark)", as: Int64.self) ?? 0
        var sources: [SourceKey: Int64] = [:]
        for (n, key) in try db.query("SELECT number, app_key, app_version FROM rollup_sources", { r throws(SQLDecodingError) in
            (try r.decode("number", as: Int64.self), SourceKey(appKey: try r.decode("app_key"), appVersion: try r.decode("app_version")))
        }) {
            sources[key] = n
        }
        self.sources = sources
        // The days the range touches, as the rollups count them.
        let days = RollupFilter(
            appKey: filter.appKey, appVersion: filter.appVersion, sinceDay: filter.since.map(UTCDay.number(of:)),
            untilDay: filter.until.map { UTCDay.number(of: $0 - 1) + 1 })
        var plans: [[Int64: (name: String, bySource: [Int64: EventSelection])]] = []
        for j in selectors.indices {
            let type = selectors[j].selector.type
            var kinds: [String: Int64] = [:]
            for (n, name) in try db.query("SELECT number, name FROM rollup_kinds WHERE type = \(type)", { r throws(SQLDecodingError) in
                (try r.decode("number", as: Int64.self), try r.decode("name", as: String.self))
            }) {
                kinds[name] = n
            }
            var plan: [Int64: (name: String, bySource: [Int64: EventSelection])] = [:]
            func add(_ r: SQLiteStatement) throws(SQLDecodingError) -> Bool {
                let name: String = try r.decode("name"), appKey: String = try r.decode("app_key")
                let appVersion: String? = try r.decode("app_version")
                // A kind or source not numbered: the blocks hold none of its events.
                guard let kind = kinds[name], let source = sources[SourceKey(appKey: appKey, appVersion: appVersion ?? "")] else { return true }
                let answer = selectors[j].selector.selection(appKey: appKey, appVersion: appVersion, path: try r.decode("path"), title: try r.decode("title"))
                if plan[kind] == nil { plan[kind] = (name, [:]) }
                let known = plan[kind]!.bySource[source]
                plan[kind]!.bySource[source] = known == nil || known == answer ? answer : .byValue
                return true
            }
            try db.stream(
                """
                SELECT name, app_key, app_version, path, title FROM rollup_events\(SQLQuery.where(days.conditions(day: "day") + ["type = \(type)"]))
                GROUP BY name, app_key, app_version, path, title
                """, add)
            if pagesThrough < blocksThrough {
                let conditions = try ZonedFilter(filter, db).conditions() + ["seq > \(pagesThrough)", "seq <= \(blocksThrough)", "type = \(type)"]
                try db.stream(
                    """
                    SELECT name, app_key, app_version, path, \(raw: SQLiteEventStore.titleSQL(props: "props")) AS title
                    FROM events\(SQLQuery.where(conditions)) GROUP BY name, app_key, app_version, path, title
                    """, add)
            }
            plans.append(plan)
        }
        self.selected = selectors
        self.plans = plans
    }

    /// The blocks to read: per selector, each stored kind it selects every event of for some
    /// sources, those sources (of the ones `allowed` keeps; nil: every one).
    func blockReads(keeping allowed: [Bool]?) -> [SQLiteEventStore.KindRead] {
        var reads: [SQLiteEventStore.KindRead] = []
        for (j, plan) in plans.enumerated() {
            for number in plan.keys.sorted() {
                let every = plan[number]!.bySource.filter { $0.value == .every }.map(\.key)
                guard let top = every.max() else { continue }
                var keep = [Bool](repeating: false, count: Int(top) + 1)
                for s in every where allowed.map({ Int(s) < $0.count && $0[Int(s)] }) ?? true { keep[Int(s)] = true }
                reads.append(SQLiteEventStore.KindRead(kind: selected[j].kind, number: number, keep: keep))
            }
        }
        return reads
    }

    /// Hands `each` the rows of the events of the kinds selected in part (per source), read from
    /// `events` and matched one by one, in no particular order, until it returns false (then false).
    mutating func readEvents(
        _ query: ActorEventQuery, in db: SQLiteDatabase, _ numbers: inout LocalNumbers, _ each: (ActorEvent) -> Bool
    ) throws(SQLiteError) -> Bool {
        let zoned = try ZonedFilter(query.filter, db)
        let actor = query.actor.sentIDColumn
        for j in plans.indices {
            let type = selected[j].selector.type
            let value: SQLQuery = selected[j].selector.valueKey.map { SQLiteEventStore.propValueSQL(props: "events.props", key: $0) } ?? "NULL"
            for number in plans[j].keys.sorted() {
                let (name, bySource) = plans[j][number]!
                guard bySource.values.contains(.byValue) else { continue }
                let conditions = zoned.conditions() + ["type = \(type)", "name = \(name)", "seq <= \(blocksThrough)", "\(raw: actor) IS NOT NULL"]
                var going = true
                var unnumbered = false
                try db.stream(
                    """
                    SELECT seq, corrected_ts, app_key, app_version, path, \(raw: SQLiteEventStore.titleSQL(props: "props")) AS title, \(value) AS value,
                           (SELECT number FROM rollup_ids WHERE rollup_ids.app_key = events.app_key AND rollup_ids.id = \(raw: actor)) AS actor
                    FROM events\(SQLQuery.where(conditions))
                    """
                ) { r throws(SQLDecodingError) in
                    let appKey: String = try r.decode("app_key"), appVersion: String? = try r.decode("app_version")
                    guard let source = sources[SourceKey(appKey: appKey, appVersion: appVersion ?? "")], bySource[source] == .byValue else {
                        return true
                    }
                    guard
                        selected[j].selector.selects(
                            appKey: appKey, appVersion: appVersion, path: try r.decode("path"), title: try r.decode("title"),
                            value: try r.decode("value"))
                    else { return true }
                    guard let stored = try r.decode("actor", as: Int64?.self) else {
                        unnumbered = true
                        return false
                    }
                    going = each(
                        ActorEvent(
                            kind: selected[j].kind, actor: numbers.number(Int(stored)), time: try r.decode("corrected_ts"), seq: try r.decode("seq")))
                    return going
                }
                if unnumbered { throw KindEventBlocks.corrupt("rollup_ids (an actor of an event the rollups hold has no number)") }
                if !going { return false }
            }
        }
        return true
    }
}
