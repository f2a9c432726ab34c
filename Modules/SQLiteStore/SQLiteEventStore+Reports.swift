import EventModel
public import EventStore
import StoreSQL

extension SQLiteEventStore {
    /// An event's title as the reports and rollups know it: `props.title` when it is a string.
    static func titleSQL(props: String) -> String {
        "CASE WHEN json_type(\(props), '$.title') = 'text' THEN json_extract(\(props), '$.title') END"
    }

    /// `rollup`'s conditions on a rollup table of one day per row, or without it `filter`'s on
    /// `events`, its time range through the zone map (`ZonedFilter`).
    func eventConditions(_ filter: EventFilter, _ rollup: RollupFilter?) throws(StoreError) -> [SQLQuery] {
        if let rollup { return rollup.conditions(day: "day") }
        return try zoned(filter).conditions()
    }

    public func totals(_ filter: EventFilter) throws(StoreError) -> StoreTotals {
        let rollup = try rollupFilter(filter)
        let e = SQLQuery.where(try eventConditions(filter, rollup))
        let (events, apps): (SQLQuery, SQLQuery) =
            rollup == nil
            ? ("COUNT(*) FROM events", "COUNT(DISTINCT app_key) FROM events")
            : ("COALESCE(SUM(events), 0) FROM rollup_events", "COUNT(DISTINCT app_key) FROM rollup_events")
        let other = filter.whereClause(timed: false, dialect: .sqlite)
        return try read(
            """
            SELECT (SELECT \(events)\(e)) AS events, (SELECT COUNT(*) FROM rejected\(other)) AS rejected,
                   (SELECT COALESCE(SUM(duplicates), 0) FROM batches\(other)) AS duplicates,
                   (SELECT COUNT(*) FROM batches\(other)) AS batches, (SELECT \(apps)\(e)) AS apps
            """
        ) { r throws(SQLDecodingError) in
            StoreTotals(
                events: try r.decode("events"), rejected: try r.decode("rejected"), duplicates: try r.decode("duplicates"),
                batches: try r.decode("batches"), apps: try r.decode("apps"))
        }.first ?? StoreTotals(events: 0, rejected: 0, duplicates: 0, batches: 0, apps: 0)
    }

    public func eventCounts(_ filter: EventFilter) throws(StoreError) -> [EventCount] {
        let rollup = try rollupFilter(filter)
        let f = SQLQuery.where(try eventConditions(filter, rollup))
        let (count, table) = rollup == nil ? ("COUNT(*)", "events") : ("SUM(events)", "rollup_events")
        return try read(
            "SELECT type, name, \(raw: count) AS n FROM \(raw: table)\(f) GROUP BY type, name ORDER BY n DESC, type, name"
        ) { r throws(SQLDecodingError) in
            EventCount(type: try r.decode("type"), name: try r.decode("name"), count: try r.decode("n"))
        }
    }

    public func pageActivity(_ filter: EventFilter) throws(StoreError) -> [PageActivity] {
        let sql: SQLQuery
        if let rollup = try rollupFilter(filter) {
            let f = SQLQuery.where(rollup.conditions(day: "day") + ["type IN ('page_enter', 'page_leave')"])
            // AVG over the events sums their durations as a double; so does TOTAL, which (unlike
            // SUM) never fails on a sum past 64 bits, however large the stored durations.
            sql = """
                SELECT COALESCE(page, name) AS p,
                       SUM(CASE WHEN type = 'page_enter' THEN events ELSE 0 END) AS enters,
                       SUM(CASE WHEN type = 'page_leave' THEN events ELSE 0 END) AS leaves,
                       TOTAL(CASE WHEN type = 'page_leave' THEN dwell_sum END)
                           / NULLIF(SUM(CASE WHEN type = 'page_leave' THEN dwell_count END), 0) AS dwell
                FROM rollup_events\(f)
                GROUP BY p ORDER BY p
                """
        } else {
            let f = try zoned(filter).whereClause("type IN ('page_enter', 'page_leave')")
            sql = """
                SELECT COALESCE(page, name) AS p,
                       SUM(type = 'page_enter') AS enters, SUM(type = 'page_leave') AS leaves,
                       AVG(duration) FILTER (WHERE type = 'page_leave' AND duration IS NOT NULL) AS dwell
                FROM events\(f)
                GROUP BY p ORDER BY p
                """
        }
        return try read(sql) { r throws(SQLDecodingError) in
            PageActivity(
                page: try r.decode("p"), enters: try r.decode("enters"), leaves: try r.decode("leaves"),
                meanDwellMilliseconds: try r.decode("dwell"))
        }
    }

    public func pathCounts(_ filter: EventFilter) throws(StoreError) -> [PathCount] {
        let rollup = try rollupFilter(filter)
        let f = SQLQuery.where((try eventConditions(filter, rollup)) + ["path IS NOT NULL"])
        let (title, count, table) =
            rollup == nil ? (Self.titleSQL(props: "props"), "COUNT(*)", "events") : ("title", "SUM(events)", "rollup_events")
        return try read(
            """
            SELECT app_key, type, path, \(raw: title) AS title, app_version, \(raw: count) AS n
            FROM \(raw: table)\(f)
            GROUP BY app_key, app_version, type, path, title ORDER BY app_key, app_version, type, path, title
            """
        ) { r throws(SQLDecodingError) in
            PathCount(
                appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), type: try r.decode("type"),
                path: try r.decode("path"), title: try r.decode("title"), count: try r.decode("n"))
        }
    }

    public func propValueCounts(appKey: String, key: String, _ filter: EventFilter) throws(StoreError) -> [PropValueCount] {
        // `+`: the zone map's seq ranges lead, not the dedup index `(app_key, id)`.
        let f = try zoned(filter).whereClause(table: "e", "+e.app_key = \(appKey)", "e.path IS NOT NULL", "j.key = \(key)")
        // json_each compares the key as a plain string, so any key works, quotes and dots included.
        return try read(
            """
            SELECT e.type, e.path, \(raw: Self.titleSQL(props: "e.props")) AS title,
                   CAST(json_extract(e.props, '$.rules') AS TEXT) AS rules,
                   CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                               WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END AS v,
                   e.app_version, COUNT(*) AS n
            FROM events AS e, json_each(e.props) AS j
            \(f)
            GROUP BY e.app_version, e.type, e.path, title, rules, v ORDER BY e.app_version, e.type, e.path, title, rules, v
            """
        ) { r throws(SQLDecodingError) in
            PropValueCount(
                appVersion: try r.decode("app_version"), type: try r.decode("type"), path: try r.decode("path"), title: try r.decode("title"),
                rules: try r.decode("rules"), value: try r.decode("v", as: String?.self) ?? "", count: try r.decode("n"))
        }
    }

    public func kvcErrorCounts(_ filter: EventFilter) throws(StoreError) -> [KVCErrorCount] {
        // Through the partial index `events_kvc_errors` (app key and time), not the zone map.
        let f = filter.whereClause(dialect: .sqlite, "type = 'kvc_error'")
        func strings(_ text: String?) -> [String] {
            guard let text, let array = (try? JSONValue.parse(text))?.arrayValue else { return [] }
            return array.compactMap(\.stringValue).sorted()
        }
        return try read(
            """
            SELECT app_key,
                   COALESCE(CAST(json_extract(props, '$.ruleId') AS TEXT), CAST(json_extract(props, '$.rule') AS TEXT), name) AS rule,
                   COALESCE(CAST(json_extract(props, '$.appVersion') AS TEXT), app_version, '(unknown)') AS version,
                   COUNT(*) AS n,
                   json_group_array(DISTINCT CAST(json_extract(props, '$.keyPath') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.keyPath') IS NOT NULL) AS key_paths,
                   json_group_array(DISTINCT CAST(json_extract(props, '$.missingKey') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.missingKey') IS NOT NULL) AS missing_keys
            FROM events\(f)
            GROUP BY app_key, rule, version ORDER BY n DESC, app_key, rule, version
            """
        ) { r throws(SQLDecodingError) in
            KVCErrorCount(
                appKey: try r.decode("app_key"), rule: try r.decode("rule"), appVersion: try r.decode("version"), count: try r.decode("n"),
                keyPaths: strings(try r.decode("key_paths")), missingKeys: strings(try r.decode("missing_keys")))
        }
    }

    public func rejectedCounts(_ filter: EventFilter) throws(StoreError) -> [ReasonCount] {
        let f = filter.whereClause(timed: false, dialect: .sqlite)
        return try read("SELECT reason, COUNT(*) AS n FROM rejected\(f) GROUP BY reason ORDER BY n DESC, reason") {
            r throws(SQLDecodingError) in
            ReasonCount(reason: try r.decode("reason"), count: try r.decode("n"))
        }
    }
}
