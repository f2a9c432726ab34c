import EventModel
import EventStore

/// An `EventFilter` as SQL conditions on `events` (or a table aliased `table`).
struct EventFilterSQL {
    var conditions: [String] = []
    var parameters: [SQLiteValue] = []

    /// `timed`: false for tables without event times (`rejected`, `batches`), which are
    /// filtered by app key and version only.
    init(_ filter: EventFilter, table: String, timed: Bool = true) {
        let prefix = table.isEmpty ? "" : table + "."
        if let k = filter.appKey {
            // Without a time range, `+` keeps SQLite from reading the app's rows through
            // `events_corrected_ts`: that visits the table in time order, one random page per
            // row (measured: a 1,000,000-event scan took 27 times as long as reading the table).
            let ranged = timed && (filter.since != nil || filter.until != nil)
            conditions.append("\(ranged ? "" : "+")\(prefix)app_key = ?")
            parameters.append(.text(k))
        }
        if let v = filter.appVersion {
            conditions.append("\(prefix)app_version = ?")
            parameters.append(.text(v))
        }
        if timed, let since = filter.since {
            conditions.append("\(prefix)corrected_ts >= ?")
            parameters.append(.int(since))
        }
        if timed, let until = filter.until {
            conditions.append("\(prefix)corrected_ts < ?")
            parameters.append(.int(until))
        }
    }

    /// ` WHERE cond AND cond …` over the filter's conditions and `extra` (whose parameters come
    /// after the filter's), or nothing when there are none.
    func `where`(_ extra: String...) -> String {
        let all = conditions + extra
        return all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
    }
}

extension SQLiteEventStore {
    /// An event's title as the reports and rollups know it: `props.title` when it is a string.
    static func titleSQL(props: String) -> String {
        "CASE WHEN json_type(\(props), '$.title') = 'text' THEN json_extract(\(props), '$.title') END"
    }

    public func totals(_ filter: EventFilter) throws(StoreError) -> StoreTotals {
        let rollup = try rollupFilter(filter)
        let e = rollup?.sql(day: "day") ?? EventFilterSQL(filter, table: "")
        let (events, apps) = rollup == nil ? ("COUNT(*) FROM events", "COUNT(DISTINCT app_key) FROM events") : ("COALESCE(SUM(events), 0) FROM rollup_events", "COUNT(DISTINCT app_key) FROM rollup_events")
        let other = EventFilterSQL(filter, table: "", timed: false)
        let r = try read(
            """
            SELECT (SELECT \(events)\(e.where())), (SELECT COUNT(*) FROM rejected\(other.where())),
                   (SELECT COALESCE(SUM(duplicates), 0) FROM batches\(other.where())), (SELECT COUNT(*) FROM batches\(other.where())),
                   (SELECT \(apps)\(e.where()))
            """, e.parameters + other.parameters + other.parameters + other.parameters + e.parameters)
        let v = r.first ?? []
        func at(_ i: Int) -> Int { i < v.count ? Int(v[i].int ?? 0) : 0 }
        return StoreTotals(events: at(0), rejected: at(1), duplicates: at(2), batches: at(3), apps: at(4))
    }

    public func eventCounts(_ filter: EventFilter) throws(StoreError) -> [EventCount] {
        let rollup = try rollupFilter(filter)
        let f = rollup?.sql(day: "day") ?? EventFilterSQL(filter, table: "")
        return try read(
            "SELECT type, name, \(rollup == nil ? "COUNT(*)" : "SUM(events)") AS n FROM \(rollup == nil ? "events" : "rollup_events")\(f.where()) GROUP BY type, name ORDER BY n DESC, type, name",
            f.parameters
        ).map {
            EventCount(type: $0[0].text ?? "", name: $0[1].text ?? "", count: Int($0[2].int ?? 0))
        }
    }

    public func pageActivity(_ filter: EventFilter) throws(StoreError) -> [PageActivity] {
        let sql: String
        let parameters: [SQLiteValue]
        if let rollup = try rollupFilter(filter) {
            let f = rollup.sql(day: "day")
            // AVG over the events sums their durations as a double; so does TOTAL, which (unlike
            // SUM) never fails on a sum past 64 bits, however large the stored durations.
            sql = """
                SELECT COALESCE(page, name) AS p,
                       SUM(CASE WHEN type = 'page_enter' THEN events ELSE 0 END), SUM(CASE WHEN type = 'page_leave' THEN events ELSE 0 END),
                       TOTAL(CASE WHEN type = 'page_leave' THEN dwell_sum END)
                           / NULLIF(SUM(CASE WHEN type = 'page_leave' THEN dwell_count END), 0)
                FROM rollup_events\(f.where("type IN ('page_enter', 'page_leave')"))
                GROUP BY p ORDER BY p
                """
            parameters = f.parameters
        } else {
            let f = EventFilterSQL(filter, table: "")
            sql = """
                SELECT COALESCE(page, name) AS p,
                       SUM(type = 'page_enter'), SUM(type = 'page_leave'),
                       AVG(duration) FILTER (WHERE type = 'page_leave' AND duration IS NOT NULL)
                FROM events\(f.where("type IN ('page_enter', 'page_leave')"))
                GROUP BY p ORDER BY p
                """
            parameters = f.parameters
        }
        return try read(sql, parameters).map {
            PageActivity(
                page: $0[0].text ?? "", enters: Int($0[1].int ?? 0), leaves: Int($0[2].int ?? 0),
                meanDwellMilliseconds: $0[3].double)
        }
    }

    public func pathCounts(_ filter: EventFilter) throws(StoreError) -> [PathCount] {
        let rollup = try rollupFilter(filter)
        let f = rollup?.sql(day: "day") ?? EventFilterSQL(filter, table: "")
        let (title, count) = rollup == nil ? ("\(Self.titleSQL(props: "props"))", "COUNT(*)") : ("title", "SUM(events)")
        return try read(
            """
            SELECT app_key, type, path, \(title) AS title, app_version, \(count)
            FROM \(rollup == nil ? "events" : "rollup_events")\(f.where("path IS NOT NULL"))
            GROUP BY app_key, app_version, type, path, title ORDER BY app_key, app_version, type, path, title
            """, f.parameters
        ).map {
            PathCount(
                appKey: $0[0].text ?? "", appVersion: $0[4].text, type: $0[1].text ?? "", path: $0[2].text ?? "",
                title: $0[3].text, count: Int($0[5].int ?? 0))
        }
    }

    public func propValueCounts(appKey: String, key: String, _ filter: EventFilter) throws(StoreError) -> [PropValueCount] {
        let f = EventFilterSQL(filter, table: "e")
        // json_each compares the key as a plain string, so any key works, quotes and dots included.
        return try read(
            """
            SELECT e.type, e.path, \(Self.titleSQL(props: "e.props")) AS title,
                   CAST(json_extract(e.props, '$.rules') AS TEXT) AS rules,
                   CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                               WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END AS v,
                   e.app_version, COUNT(*)
            FROM events AS e, json_each(e.props) AS j
            \(f.where("e.app_key = ?", "e.path IS NOT NULL", "j.key = ?"))
            GROUP BY e.app_version, e.type, e.path, title, rules, v ORDER BY e.app_version, e.type, e.path, title, rules, v
            """, f.parameters + [.text(appKey), .text(key)]
        ).map {
            PropValueCount(
                appVersion: $0[5].text, type: $0[0].text ?? "", path: $0[1].text ?? "", title: $0[2].text, rules: $0[3].text,
                value: $0[4].text ?? "", count: Int($0[6].int ?? 0))
        }
    }

    public func kvcErrorCounts(_ filter: EventFilter) throws(StoreError) -> [KVCErrorCount] {
        let f = EventFilterSQL(filter, table: "")
        let rows = try read(
            """
            SELECT app_key,
                   COALESCE(CAST(json_extract(props, '$.ruleId') AS TEXT), CAST(json_extract(props, '$.rule') AS TEXT), name) AS rule,
                   COALESCE(CAST(json_extract(props, '$.appVersion') AS TEXT), app_version, '(unknown)') AS version,
                   COUNT(*) AS n,
                   json_group_array(DISTINCT CAST(json_extract(props, '$.keyPath') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.keyPath') IS NOT NULL),
                   json_group_array(DISTINCT CAST(json_extract(props, '$.missingKey') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.missingKey') IS NOT NULL)
            FROM events\(f.where("type = 'kvc_error'"))
            GROUP BY app_key, rule, version ORDER BY n DESC, app_key, rule, version
            """, f.parameters)
        func strings(_ v: SQLiteValue) -> [String] {
            guard let text = v.text, let array = (try? JSONValue.parse(text))?.arrayValue else { return [] }
            return array.compactMap(\.stringValue).sorted()
        }
        return rows.map {
            KVCErrorCount(
                appKey: $0[0].text ?? "", rule: $0[1].text ?? "", appVersion: $0[2].text ?? "", count: Int($0[3].int ?? 0),
                keyPaths: strings($0[4]), missingKeys: strings($0[5]))
        }
    }

    public func rejectedCounts(_ filter: EventFilter) throws(StoreError) -> [ReasonCount] {
        let f = EventFilterSQL(filter, table: "", timed: false)
        return try read(
            "SELECT reason, COUNT(*) AS n FROM rejected\(f.where()) GROUP BY reason ORDER BY n DESC, reason", f.parameters
        ).map {
            ReasonCount(reason: $0[0].text ?? "", count: Int($0[1].int ?? 0))
        }
    }
}
