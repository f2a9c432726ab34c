import EventModel
public import EventStore
import StoreSQL

// The report queries mean what the SQLite store's mean, row for row: text sorted by bytes
// (COLLATE "C"), NULL first, as SQLite sorts. Props are `json`, read with `->>`.
extension PostgresEventStore {
    public func totals(_ filter: EventFilter) throws(StoreError) -> StoreTotals {
        // Rejected events and batches by app key and version only.
        let untimed = filter.postgresWhere(timed: false)
        let others: SQLQuery = """
            (SELECT COUNT(*) FROM rejected\(untimed)) AS rejected,
            (SELECT COALESCE(SUM(duplicates), 0) FROM batches\(untimed)) AS duplicates, (SELECT COUNT(*) FROM batches\(untimed)) AS batches
            """
        func totals(_ r: PostgresRow) throws(SQLDecodingError) -> StoreTotals {
            StoreTotals(
                events: try r["events"], rejected: try r["rejected"], duplicates: try r["duplicates"], batches: try r["batches"],
                apps: try r["apps"])
        }
        let rows: [StoreTotals]
        if let rollups = PostgresRollupFilter(filter) {
            rows = try readRolledUp(rollups, { a in
                """
                WITH c AS MATERIALIZED (SELECT app_key, events FROM \(a.counts()))
                SELECT (SELECT COALESCE(SUM(events), 0) FROM c) AS events, \(others), (SELECT COUNT(DISTINCT app_key) FROM c) AS apps
                """
            }, row: totals)
        } else {
            let e = filter.postgresWhere()
            rows = try read(
                """
                SELECT (SELECT COUNT(*) FROM events\(e)) AS events, \(others), (SELECT COUNT(DISTINCT app_key) FROM events\(e)) AS apps
                """, totals)
        }
        return rows.first ?? StoreTotals()
    }

    public func eventCounts(_ filter: EventFilter) throws(StoreError) -> [EventCount] {
        try readCounts(filter) { source in
            """
            SELECT type, name, SUM(events) AS n FROM \(source) GROUP BY type, name
            ORDER BY n DESC, type COLLATE "C", name COLLATE "C"
            """
        } row: { r throws(SQLDecodingError) in EventCount(type: try r["type"], name: try r["name"], count: try r["n"]) }
    }

    /// The rows of the statement `build` makes over what the count reports read (`source`,
    /// aliased `e`), each read by `row`: the rollups plus the tail when `filter`'s bounds are
    /// whole days, else the events themselves in the rollups' columns.
    func readCounts<T>(
        _ filter: EventFilter, _ build: (_ source: SQLQuery) -> SQLQuery, row: (PostgresRow) throws(SQLDecodingError) -> T
    ) throws(StoreError) -> [T] {
        if let a = PostgresRollupFilter(filter) { return try readRolledUp(a, { a in build(a.counts()) }, row: row) }
        return try read(build("(\(PostgresRollups.countRows("agg_source\(filter.postgresWhere())"))) AS e"), row)
    }

    public func pageActivity(_ filter: EventFilter) throws(StoreError) -> [PageActivity] {
        // The mean of the durations: their sum as a double over their count, as SQLite computes it.
        try readCounts(filter) { source in
            """
            SELECT COALESCE(page, name) AS p,
                   SUM(events) FILTER (WHERE type = 'page_enter') AS enters, SUM(events) FILTER (WHERE type = 'page_leave') AS leaves,
                   SUM(dwell_sum) FILTER (WHERE type = 'page_leave')::float8
                   / NULLIF(SUM(dwell_count) FILTER (WHERE type = 'page_leave'), 0) AS mean_dwell
            FROM \(source) WHERE type IN ('page_enter', 'page_leave')
            GROUP BY p ORDER BY COALESCE(page, name) COLLATE "C"
            """
        } row: { r throws(SQLDecodingError) in
            PageActivity(
                page: try r["p"], enters: try r["enters", as: Int?.self] ?? 0, leaves: try r["leaves", as: Int?.self] ?? 0,
                meanDwellMilliseconds: try r["mean_dwell"])
        }
    }

    public func pathCounts(_ filter: EventFilter) throws(StoreError) -> [PathCount] {
        try readCounts(filter) { source in
            """
            SELECT * FROM (
                SELECT app_key, type, path, title, app_version, SUM(events) AS n
                FROM \(source) WHERE path IS NOT NULL
                GROUP BY app_key, app_version, type, path, title
            ) AS q
            ORDER BY app_key COLLATE "C", app_version COLLATE "C" NULLS FIRST, type COLLATE "C", path COLLATE "C",
                     title COLLATE "C" NULLS FIRST
            """
        } row: { r throws(SQLDecodingError) in
            PathCount(
                appKey: try r["app_key"], appVersion: try r["app_version"], type: try r["type"], path: try r["path"],
                title: try r["title"], count: try r["n"])
        }
    }

    public func propValueCounts(appKey: String, key: String, _ filter: EventFilter) throws(StoreError) -> [PropValueCount] {
        let app = PostgresText.encode(appKey)
        // json_each compares the key as a plain string, so any key works, quotes and dots included.
        return try read(
            """
            SELECT * FROM (
                SELECT e.type, e.path, CASE WHEN json_typeof(e.props->'title') = 'string' THEN e.props->>'title' END AS title, e.props->>'rules' AS rules,
                       CASE json_typeof(j.value) WHEN 'string' THEN j.value #>> '{}' WHEN 'null' THEN 'null'
                                                 ELSE j.value::text END AS v,
                       e.app_version, COUNT(*) AS n
                FROM events AS e, json_each(e.props) AS j
                \(filter.postgresWhere(table: "e", "e.app_key = \(app)", "j.key = \(key)", "e.path IS NOT NULL"))
                GROUP BY e.app_version, e.type, e.path, title, rules, v
            ) AS q
            ORDER BY app_version COLLATE "C" NULLS FIRST, type COLLATE "C", path COLLATE "C", title COLLATE "C" NULLS FIRST,
                     rules COLLATE "C" NULLS FIRST, v COLLATE "C"
            """
        ) { r throws(SQLDecodingError) in
            PropValueCount(
                appVersion: try r["app_version"], type: try r["type"], path: try r["path"], title: try r["title"],
                rules: try r["rules"], value: try r["v"], count: try r["n"])
        }
    }

    /// One GROUP BY: over the rollups plus the tail when the bounds are whole days and no
    /// prop value is asked for, else over `events` (`corrected_ts` range through
    /// `events_corrected_ts` when the filter names an app and a range); types and paths are
    /// passed as array parameters.
    public func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        var conditions: [SQLQuery] = []
        if !query.types.isEmpty { conditions.append("type = ANY(\(PostgresTextArray(query.types))::text[])") }
        if !query.paths.isEmpty { conditions.append("path = ANY(\(PostgresTextArray(query.paths.map(PostgresText.encode)))::text[])") }
        conditions.append("path IS NOT NULL")
        func statement(source: SQLQuery, day: String, title: String, value: SQLQuery, count: String, _ filter: [SQLQuery]) -> SQLQuery {
            """
            SELECT * FROM (
                SELECT app_key, app_version, \(raw: day) AS day, type, path, \(raw: title) AS title, \(value) AS v, \(raw: count) AS n
                FROM \(source)\(SQLQuery.where(filter + conditions))
                GROUP BY app_key, app_version, 3, type, path, 6, v
            ) AS q
            ORDER BY app_key COLLATE "C", app_version COLLATE "C" NULLS FIRST, day, type COLLATE "C", path COLLATE "C",
                     title COLLATE "C" NULLS FIRST, v COLLATE "C" NULLS FIRST
            """
        }
        func count(_ r: PostgresRow) throws(SQLDecodingError) -> PathDayCount {
            PathDayCount(
                appKey: try r["app_key"], appVersion: try r["app_version"], day: try r["day"], type: try r["type"],
                path: try r["path"], title: try r["title"], value: try r["v"], count: try r["n"])
        }
        if query.valueKey == nil, let rollups = PostgresRollupFilter(query.filter) {
            return try readRolledUp(rollups, { a in
                statement(source: a.counts(), day: "day", title: "title", value: "NULL::text", count: "SUM(events)", [])
            }, row: count)
        }
        var value: SQLQuery = "NULL::text"
        if let key = query.valueKey {
            // The value as propValueCounts spells it: a string as it is, anything else as JSON text.
            value = "CASE WHEN json_typeof(props->\(key)) = 'string' THEN props->>\(key) ELSE (props->\(key))::text END"
        }
        return try read(
            statement(
                source: "events", day: PostgresRollups.day("corrected_ts"),
                title: "CASE WHEN json_typeof(props->'title') = 'string' THEN props->>'title' END", value: value, count: "COUNT(*)",
                query.filter.stored.conditions(dialect: .postgres)),
            count)
    }

    public func kvcErrorCounts(_ filter: EventFilter) throws(StoreError) -> [KVCErrorCount] {
        func strings(_ v: String?) -> [String] {
            guard let v, let array = (try? JSONValue.parse(v))?.arrayValue else { return [] }
            return array.compactMap(\.stringValue).sorted()
        }
        return try read(
            """
            SELECT * FROM (
                SELECT app_key, COALESCE(props->>'ruleId', props->>'rule', name) AS rule,
                       COALESCE(props->>'appVersion', app_version, '(unknown)') AS version, COUNT(*) AS n,
                       json_agg(DISTINCT props->>'keyPath') FILTER (WHERE props->>'keyPath' IS NOT NULL) AS key_paths,
                       json_agg(DISTINCT props->>'missingKey') FILTER (WHERE props->>'missingKey' IS NOT NULL) AS missing_keys
                FROM events\(filter.postgresWhere("type = 'kvc_error'"))
                GROUP BY app_key, rule, version
            ) AS q
            ORDER BY n DESC, app_key COLLATE "C", rule COLLATE "C", version COLLATE "C"
            """
        ) { r throws(SQLDecodingError) in
            KVCErrorCount(
                appKey: try r["app_key"], rule: try r["rule"], appVersion: try r["version"], count: try r["n"],
                keyPaths: strings(try r["key_paths"]), missingKeys: strings(try r["missing_keys"]))
        }
    }

    public func rejectedCounts(_ filter: EventFilter) throws(StoreError) -> [ReasonCount] {
        try read(
            "SELECT reason, COUNT(*) AS n FROM rejected\(filter.postgresWhere(timed: false)) GROUP BY reason ORDER BY n DESC, reason COLLATE \"C\""
        ) { r throws(SQLDecodingError) in ReasonCount(reason: try r["reason"], count: try r["n"]) }
    }
}
