import EventModel
import EventStore

/// An `EventFilter` as SQL conditions with numbered parameters (`$1`, `$2`...).
struct PostgresFilter {
    private(set) var conditions: [String] = []
    private(set) var parameters: [String?] = []

    /// `timed`: false for tables without event times (`rejected`, `batches`), filtered by app key
    /// and version only. The app key and version come first, so an untimed filter's parameters
    /// are the first ones of the timed filter of the same `EventFilter`.
    /// The number of the first parameter (`$1` unless the statement has others before).
    private let firstParameter: Int

    init(_ filter: EventFilter, table: String, timed: Bool = true, firstParameter: Int = 1) {
        self.firstParameter = firstParameter
        let prefix = table.isEmpty ? "" : table + "."
        if let k = filter.appKey { add("\(prefix)app_key = ?", PostgresText.encode(k)) }
        if let v = filter.appVersion { add("\(prefix)app_version = ?", PostgresText.encode(v)) }
        if timed, let since = filter.since { add("\(prefix)corrected_ts >= ?::bigint", String(since)) }
        if timed, let until = filter.until { add("\(prefix)corrected_ts < ?::bigint", String(until)) }
    }

    /// Adds a condition whose one `?` is `value`.
    mutating func add(_ condition: String, _ value: String) {
        parameters.append(value)
        conditions.append(condition.replacingOnce("?", with: "$\(firstParameter + parameters.count - 1)"))
    }

    /// ` WHERE …` (or nothing), with `extra` conditions (without parameters) after the filter's.
    func `where`(_ extra: String...) -> String {
        let all = conditions + extra
        return all.isEmpty ? "" : " WHERE " + all.joined(separator: " AND ")
    }
}

extension String {
    fileprivate func replacingOnce(_ target: Character, with replacement: String) -> String {
        guard let i = firstIndex(of: target) else { return self }
        return String(self[..<i]) + replacement + String(self[index(after: i)...])
    }
}

// The report queries mean what the SQLite store's mean, row for row: text sorted by bytes
// (COLLATE "C"), NULL first, as SQLite sorts. Props are `json`, read with `->>`.
extension PostgresEventStore {
    public func totals(_ filter: EventFilter) throws(StoreError) -> StoreTotals {
        // Rejected events and batches by app key and version only.
        func others(_ other: PostgresFilter) -> String {
            """
            (SELECT COUNT(*) FROM rejected\(other.where())), (SELECT COALESCE(SUM(duplicates), 0) FROM batches\(other.where())),
            (SELECT COUNT(*) FROM batches\(other.where()))
            """
        }
        let v: [String?]
        if let aggregates = PostgresAggregateFilter(filter) {
            v = try readAggregated(aggregates) { a in
                let source = a.counts()
                let other = PostgresFilter(filter, table: "", timed: false, firstParameter: a.parameters.count + 1)
                for p in other.parameters { _ = a.bind(p) }
                return """
                    WITH c AS MATERIALIZED (SELECT app_key, events FROM \(source))
                    SELECT (SELECT COALESCE(SUM(events), 0) FROM c), \(others(other)), (SELECT COUNT(DISTINCT app_key) FROM c)
                    """
            }.first ?? []
        } else {
            // The untimed filter's parameters are the first ones of the timed filter's (the same values).
            let e = PostgresFilter(filter, table: "")
            v = try read(
                """
                SELECT (SELECT COUNT(*) FROM events\(e.where())), \(others(PostgresFilter(filter, table: "", timed: false))),
                       (SELECT COUNT(DISTINCT app_key) FROM events\(e.where()))
                """, e.parameters
            ).first ?? []
        }
        func at(_ i: Int) -> Int { i < v.count ? v[i].flatMap { Int($0) } ?? 0 : 0 }
        return StoreTotals(events: at(0), rejected: at(1), duplicates: at(2), batches: at(3), apps: at(4))
    }

    public func eventCounts(_ filter: EventFilter) throws(StoreError) -> [EventCount] {
        try readCounts(filter) { source in
            """
            SELECT type, name, SUM(events) AS n FROM \(source) GROUP BY type, name
            ORDER BY n DESC, type COLLATE "C", name COLLATE "C"
            """
        }.map { EventCount(type: $0[0] ?? "", name: $0[1] ?? "", count: Self.int($0[2])) }
    }

    /// The rows of the statement `build` makes over what the count reports read (`source`,
    /// aliased `e`): the aggregates plus the tail when `filter`'s bounds are whole days, else the
    /// events themselves in the aggregates' columns.
    func readCounts(_ filter: EventFilter, _ build: (_ source: String) -> String) throws(StoreError) -> [[String?]] {
        if let a = PostgresAggregateFilter(filter) { return try readAggregated(a) { a in build(a.counts()) } }
        let f = PostgresFilter(filter, table: "")
        return try read(build("(\(PostgresAggregates.countRows("agg_source\(f.where())"))) AS e"), f.parameters)
    }

    public func pageActivity(_ filter: EventFilter) throws(StoreError) -> [PageActivity] {
        // The mean of the durations: their sum as a double over their count, as SQLite computes it.
        try readCounts(filter) { source in
            """
            SELECT COALESCE(page, name) AS p,
                   SUM(events) FILTER (WHERE type = 'page_enter'), SUM(events) FILTER (WHERE type = 'page_leave'),
                   SUM(dwell_sum) FILTER (WHERE type = 'page_leave')::float8 / NULLIF(SUM(dwell_count) FILTER (WHERE type = 'page_leave'), 0)
            FROM \(source) WHERE type IN ('page_enter', 'page_leave')
            GROUP BY p ORDER BY COALESCE(page, name) COLLATE "C"
            """
        }.map {
            PageActivity(
                page: $0[0] ?? "", enters: Self.int($0[1]), leaves: Self.int($0[2]),
                meanDwellMilliseconds: $0[3].flatMap { Double($0) })
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
        }.map {
            PathCount(
                appKey: $0[0] ?? "", appVersion: $0[4], type: $0[1] ?? "", path: $0[2] ?? "", title: $0[3],
                count: Self.int($0[5]))
        }
    }

    public func propValueCounts(appKey: String, key: String, _ filter: EventFilter) throws(StoreError) -> [PropValueCount] {
        var f = PostgresFilter(filter, table: "e")
        f.add("e.app_key = ?", PostgresText.encode(appKey))
        f.add("j.key = ?", key)
        // json_each compares the key as a plain string, so any key works, quotes and dots included.
        return try read(
            """
            SELECT * FROM (
                SELECT e.type, e.path, CASE WHEN json_typeof(e.props->'title') = 'string' THEN e.props->>'title' END AS title, e.props->>'rules' AS rules,
                       CASE json_typeof(j.value) WHEN 'string' THEN j.value #>> '{}' WHEN 'null' THEN 'null'
                                                 ELSE j.value::text END AS v,
                       e.app_version, COUNT(*) AS n
                FROM events AS e, json_each(e.props) AS j
                \(f.where("e.path IS NOT NULL"))
                GROUP BY e.app_version, e.type, e.path, title, rules, v
            ) AS q
            ORDER BY app_version COLLATE "C" NULLS FIRST, type COLLATE "C", path COLLATE "C", title COLLATE "C" NULLS FIRST,
                     rules COLLATE "C" NULLS FIRST, v COLLATE "C"
            """, f.parameters
        ).map {
            PropValueCount(
                appVersion: $0[5], type: $0[0] ?? "", path: $0[1] ?? "", title: $0[2], rules: $0[3], value: $0[4] ?? "",
                count: Self.int($0[6]))
        }
    }

    /// One GROUP BY: over the aggregates plus the tail when the bounds are whole days and no
    /// prop value is asked for, else over `events` (`corrected_ts` range through
    /// `events_corrected_ts` when the filter names an app and a range); types and paths are
    /// passed as array parameters.
    public func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        let types = PostgresArrayLiteral.text(query.types)
        let paths = PostgresArrayLiteral.text(query.paths.map(PostgresText.encode))
        func statement(source: String, day: String, title: String, value: String, count: String, _ conditions: [String]) -> String {
            """
            SELECT * FROM (
                SELECT app_key, app_version, \(day) AS day, type, path, \(title) AS title, \(value) AS v, \(count) AS n
                FROM \(source)\(PostgresAggregateFilter.where(conditions + ["path IS NOT NULL"]))
                GROUP BY app_key, app_version, 3, type, path, 6, v
            ) AS q
            ORDER BY app_key COLLATE "C", app_version COLLATE "C" NULLS FIRST, day, type COLLATE "C", path COLLATE "C",
                     title COLLATE "C" NULLS FIRST, v COLLATE "C" NULLS FIRST
            """
        }
        let rows: [[String?]]
        if query.valueKey == nil, let aggregates = PostgresAggregateFilter(query.filter) {
            rows = try readAggregated(aggregates) { a in
                let source = a.counts()
                var conditions: [String] = []
                if !query.types.isEmpty { conditions.append("type = ANY(\(a.bind(types))::text[])") }
                if !query.paths.isEmpty { conditions.append("path = ANY(\(a.bind(paths))::text[])") }
                return statement(source: source, day: "day", title: "title", value: "NULL::text", count: "SUM(events)", conditions)
            }
        } else {
            var f = PostgresFilter(query.filter, table: "")
            if !query.types.isEmpty { f.add("type = ANY(?::text[])", types) }
            if !query.paths.isEmpty { f.add("path = ANY(?::text[])", paths) }
            var parameters = f.parameters
            var value = "NULL::text"
            if let key = query.valueKey {
                // The value as propValueCounts spells it: a string as it is, anything else as JSON text.
                parameters.append(key)
                let k = "$\(parameters.count)::text"
                value = "CASE WHEN json_typeof(props->\(k)) = 'string' THEN props->>\(k) ELSE (props->\(k))::text END"
            }
            rows = try read(
                statement(
                    source: "events", day: PostgresAggregates.day("corrected_ts"),
                    title: "CASE WHEN json_typeof(props->'title') = 'string' THEN props->>'title' END", value: value, count: "COUNT(*)",
                    f.conditions),
                parameters)
        }
        return rows.map {
            PathDayCount(
                appKey: $0[0] ?? "", appVersion: $0[1], day: $0[2].flatMap { Int64($0) } ?? 0, type: $0[3] ?? "", path: $0[4] ?? "",
                title: $0[5], value: $0[6], count: Self.int($0[7]))
        }
    }

    public func kvcErrorCounts(_ filter: EventFilter) throws(StoreError) -> [KVCErrorCount] {
        let f = PostgresFilter(filter, table: "")
        let rows = try read(
            """
            SELECT * FROM (
                SELECT app_key, COALESCE(props->>'ruleId', props->>'rule', name) AS rule,
                       COALESCE(props->>'appVersion', app_version, '(unknown)') AS version, COUNT(*) AS n,
                       json_agg(DISTINCT props->>'keyPath') FILTER (WHERE props->>'keyPath' IS NOT NULL),
                       json_agg(DISTINCT props->>'missingKey') FILTER (WHERE props->>'missingKey' IS NOT NULL)
                FROM events\(f.where("type = 'kvc_error'"))
                GROUP BY app_key, rule, version
            ) AS q
            ORDER BY n DESC, app_key COLLATE "C", rule COLLATE "C", version COLLATE "C"
            """, f.parameters)
        func strings(_ v: String?) -> [String] {
            guard let v, let array = (try? JSONValue.parse(v))?.arrayValue else { return [] }
            return array.compactMap(\.stringValue).sorted()
        }
        return rows.map {
            KVCErrorCount(
                appKey: $0[0] ?? "", rule: $0[1] ?? "", appVersion: $0[2] ?? "", count: Self.int($0[3]),
                keyPaths: strings($0[4]), missingKeys: strings($0[5]))
        }
    }

    public func rejectedCounts(_ filter: EventFilter) throws(StoreError) -> [ReasonCount] {
        let f = PostgresFilter(filter, table: "", timed: false)
        return try read(
            "SELECT reason, COUNT(*) AS n FROM rejected\(f.where()) GROUP BY reason ORDER BY n DESC, reason COLLATE \"C\"",
            f.parameters
        ).map { ReasonCount(reason: $0[0] ?? "", count: Self.int($0[1])) }
    }

    private static func int(_ v: String?) -> Int { v.flatMap { Int($0) } ?? 0 }
}
