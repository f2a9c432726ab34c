import EventStore

/// The report's behaviour figures from the aggregate tables plus the tail (PostgresAggregates.swift),
/// and bringing the aggregates up to date on demand.
extension PostgresEventStore {
    /// Adds every event after the watermark to the aggregates (the builder thread's work, done
    /// here and now: `prune`, benchmarks), then returns. Calls `progress` after each chunk.
    public func rebuildRollups(progress: (RollupProgress) -> Void) throws(StoreError) {
        var done = 0
        while let added = try withConnection({ c throws(PostgresError) in try PostgresAggregates.buildStep(c, chunk: 50_000) }) {
            done += added
            progress(RollupProgress(appKey: "", replayed: done, total: done))
        }
    }

    /// The rows of the statement `build` makes from `filter`, in one repeatable-read snapshot
    /// whose watermark the filter carries (its tail is planned with the value).
    func readAggregated(
        _ filter: PostgresAggregateFilter, _ build: (inout PostgresAggregateFilter) -> String
    ) throws(StoreError) -> [[String?]] {
        try withConnection { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) -> [[String?]] in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                var a = filter
                a.watermark = try PostgresAggregates.watermark(c)
                let sql = build(&a)
                return try c.execute(sql, a.parameters).rows.map { $0.map(PostgresText.decode) }
            }
        }
    }

    /// The whole `ActivityRollup` in one snapshot (a repeatable-read transaction), for filters
    /// whose bounds are whole days and whose app version is not the empty text (the tables key a
    /// missing version as ''); nil otherwise (the analytics then scan).
    public func activityRollup(_ filter: EventFilter) throws(StoreError) -> ActivityRollup? {
        guard filter.appVersion != "", let f = PostgresAggregateFilter(filter) else { return nil }
        let links = try deviceLinks(appKey: filter.appKey)
        let rows = try withConnection(retryOnStale: true) { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) -> ActivityRows in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                // Distinct ids are counted in memory, not in sorted runs on disk.
                try c.execute("SET LOCAL work_mem = '64MB'")
                let watermark = try PostgresAggregates.watermark(c)
                func read(_ build: (inout PostgresAggregateFilter) -> String) throws(PostgresError) -> [[String?]] {
                    var a = f
                    a.watermark = watermark
                    let sql = build(&a)
                    return try c.execute(sql, a.parameters).rows.map { $0.map(PostgresText.decode) }
                }
                var rows = ActivityRows()
                rows.days = try read { a in
                    """
                    SELECT day, SUM(n) FROM (SELECT day, events AS n FROM agg_events\(a.table(version: "app_version"))
                                             UNION ALL SELECT day, 1 FROM \(a.tail())) AS x GROUP BY day
                    """
                }
                rows.ids = try read { a in
                    // Identity merge: a merged device's actor digest counts as its user's. The counts
                    // (`agg_id_counts`) plus the tail's ids new to `agg_ids` count ids as sent; then, per
                    // day, each merged device present is taken off and each of their users not
                    // otherwise present is added (`present`: the merged devices' and users' digests
                    // on each counted day, looked up by key).
                    let version = a.appVersion.map { " AND i.v = \(a.bind($0))" } ?? ""
                    let counts = a.table(a.appVersion == nil ? "all_versions" : "NOT all_versions")
                    func inAgg(_ day: String, _ kind: String, _ h: String) -> String {
                        "EXISTS (SELECT 1 FROM agg_ids AS i WHERE i.day = \(day) AND i.kind = \(kind) AND i.h = \(h)\(version))"
                    }
                    return """
                        \(links.digestsClause { a.bind($0) }),
                        t AS MATERIALIZED (
                            SELECT DISTINCT day, kind, \(PostgresAggregates.digest("app_key", "id")) AS h
                            FROM (\(PostgresAggregates.idRows(a.tail()))) AS i),
                        c AS MATERIALIZED (
                            SELECT day, kind, n FROM agg_id_counts\(counts)
                            UNION ALL SELECT day, kind, 1 FROM t WHERE NOT \(inAgg("t.day", "t.kind", "t.h"))),
                        present AS MATERIALIZED (
                            SELECT d.day, m.h FROM (SELECT DISTINCT day FROM c) AS d
                            CROSS JOIN (SELECT dh AS h FROM merged_digests UNION SELECT uh FROM merged_digests) AS m
                            WHERE \(inAgg("d.day", "'a'", "m.h"))
                               OR EXISTS (SELECT 1 FROM t WHERE t.day = d.day AND t.kind = 'a' AND t.h = m.h)),
                        fix AS (
                            SELECT day, -count(*) AS n FROM present WHERE h IN (SELECT dh FROM merged_digests) GROUP BY day
                            UNION ALL SELECT day, count(*) FROM (
                                SELECT DISTINCT p.day, m.uh FROM present AS p JOIN merged_digests AS m ON m.dh = p.h
                                WHERE NOT EXISTS (SELECT 1 FROM present AS q WHERE q.day = p.day AND q.h = m.uh
                                                  AND q.h NOT IN (SELECT dh FROM merged_digests))
                            ) AS u GROUP BY day)
                        SELECT day, kind, sum(n) FROM (SELECT day, kind, n FROM c UNION ALL SELECT day, 'a'::"char", n FROM fix) AS x
                        GROUP BY day, kind
                        """
                }
                rows.buckets = try read { a in
                    """
                    SELECT page, bucket, SUM(n) FROM (SELECT page, bucket, leaves AS n FROM agg_dwell_buckets\(a.table())
                                                      UNION ALL SELECT page, \(PostgresAggregates.bucket("duration")), 1 FROM (\(PostgresAggregates.dwellRows(a.tail()))) AS d) AS x
                    GROUP BY page, bucket ORDER BY page COLLATE "C", bucket
                    """
                }
                rows.dwell = { page, bucket throws(PostgresError) in
                    try read { a in
                        let p = a.bind(PostgresText.encode(page)), b = a.bind(String(bucket))
                        return """
                            SELECT duration, SUM(n) FROM (
                                SELECT duration, leaves AS n FROM agg_dwell\(a.table("page = \(p)", "bucket = \(b)::bigint"))
                                UNION ALL SELECT duration, 1 FROM (\(PostgresAggregates.dwellRows(a.tail()))) AS d
                                          WHERE page = \(p) AND \(PostgresAggregates.bucket("duration")) = \(b)::bigint
                            ) AS x GROUP BY duration ORDER BY duration
                            """
                    }
                }
                rows.dwellValues = try rows.percentileRows()
                rows.transitions = try read { a in
                    let new = "WITH new AS MATERIALIZED (\(PostgresAggregates.enterRows(a.tail(timed: false)))), "
                    let delta = PostgresAggregates.transitionDelta(new: "new")
                    return """
                        \(new)\(delta)
                        SELECT from_page, to_page, SUM(n) FROM (
                            SELECT from_page, to_page, n FROM agg_transitions\(a.table(firstDay: "from_day", lastDay: "to_day"))
                            UNION ALL SELECT from_page, to_page, n FROM delta\(a.table(version: "v", firstDay: "from_day", lastDay: "to_day"))
                        ) AS x GROUP BY from_page, to_page
                        """
                }
                rows.bursts = try read { a in
                    let clicks = "h, t, seq, app_key, v, actor, view"
                    var cut: [String] = []
                    for bound in [f.since, f.until].compactMap({ $0 }) {
                        let d = a.bind(String(UTCDay.number(of: bound)))
                        cut.append("(start_day < \(d)::bigint AND end_day >= \(d)::bigint)")
                    }
                    let tail = a.tail(timed: false)
                    let cutRuns = cut.isEmpty ? "" : " UNION SELECT h FROM agg_runs\(a.table(firstDay: nil, lastDay: nil, "(\(cut.joined(separator: " OR ")))"))"
                    let inner = a.table(firstDay: "start_day", lastDay: "end_day", "h NOT IN (SELECT h FROM special)")
                    let aggClicks = PostgresAggregateFilter.where(["h IN (SELECT h FROM special)"] + a.times("t"))
                    let tailClicks = PostgresAggregateFilter.where(a.times("t"))
                    return """
                        WITH tc AS MATERIALIZED (\(PostgresAggregates.clickRows(tail))),
                        special AS MATERIALIZED (SELECT h FROM tc\(cutRuns))
                        SELECT view, app_key, actor, clicks FROM agg_runs\(inner)
                        UNION ALL
                        SELECT view, app_key, actor, clicks FROM (\(PostgresAggregates.runs(
                            "SELECT \(clicks) FROM agg_clicks\(aggClicks) UNION ALL SELECT \(clicks) FROM tc\(tailClicks)"))) AS r
                        """
                }
                rows.viewPages = try read { a in
                    """
                    SELECT DISTINCT ON (view) view, page FROM (
                        SELECT view, first_seq AS seq, page FROM agg_view_pages\(a.table())
                        UNION ALL SELECT view, seq, page FROM (\(PostgresAggregates.viewPageRows(a.tail()))) AS p
                    ) AS x ORDER BY view, seq
                    """
                }
                return rows
            }
        }
        var rollup = rows.rollup()
        rollup.mergeBurstActors(links)
        return rollup
    }
}

/// The rows `activityRollup` read, turned into an `ActivityRollup`.
private struct ActivityRows {
    var days: [[String?]] = []
    var ids: [[String?]] = []
    /// Per page (in order) and bucket, the leaves.
    var buckets: [[String?]] = []
    /// One page's exact durations with their leaves in one bucket, ascending.
    var dwell: (String, Int64) throws(PostgresError) -> [[String?]] = { _, _ in [] }
    var dwellValues: [DwellPercentiles] = []
    var transitions: [[String?]] = []
    var bursts: [[String?]] = []
    var viewPages: [[String?]] = []

    private static func int(_ v: String?) -> Int64 { v.flatMap { Int64($0) } ?? 0 }

    /// Dwell percentiles per page: the buckets' counts give the bucket and the rank within it of
    /// each percentile's value, then that bucket's exact values give the value.
    func percentileRows() throws(PostgresError) -> [DwellPercentiles] {
        var pages: [(page: String, buckets: [(first: Int64, leaves: Int)])] = []
        for r in buckets {
            let page = r[0] ?? ""
            if pages.last?.page != page { pages.append((page, [])) }
            pages[pages.count - 1].buckets.append((Self.int(r[1]), Int(Self.int(r[2]))))
        }
        return try pages.map { (page, buckets) throws(PostgresError) in
            let n = buckets.reduce(0) { $0 + $1.leaves }
            func percentile(_ p: Int) throws(PostgresError) -> Int64 {
                var rank = ActivityRollup.nearestRank(p, of: n)
                guard let bucket = buckets.first(where: { b in
                    if rank <= b.leaves { return true }
                    rank -= b.leaves
                    return false
                }) else { return 0 }
                for r in try dwell(page, bucket.first) {
                    rank -= Int(Self.int(r[1]))
                    if rank <= 0 { return Self.int(r[0]) }
                }
                return bucket.first
            }
            return DwellPercentiles(page: page, leaves: n, p50: try percentile(50), p90: try percentile(90))
        }
    }

    func rollup() -> ActivityRollup {
        var days: [Int64: ActivityRollup.Day] = [:]
        for r in self.days {
            let n = Self.int(r[0])
            days[n] = ActivityRollup.Day(number: n, events: Int(Self.int(r[1])), actors: 0, devices: 0, sessions: 0)
        }
        for r in ids {
            let n = Self.int(r[0]), count = Int(Self.int(r[2]))
            switch r[1] {
            case "a": days[n]?.actors = count
            case "d": days[n]?.devices = count
            default: days[n]?.sessions = count
            }
        }
        var viewPages: [String: String] = [:]
        for r in self.viewPages { viewPages[r[0] ?? ""] = r[1] ?? "" }
        return ActivityRollup(
            days: Array(days.values), dwell: dwellValues,
            transitions: transitions.map { ActivityRollup.Transition(from: $0[0] ?? "", to: $0[1] ?? "", count: Int(Self.int($0[2]))) },
            bursts: bursts.map {
                ActivityRollup.Burst(view: $0[0] ?? "", appKey: $0[1] ?? "", actor: $0[2] ?? "", clicks: Int(Self.int($0[3])))
            },
            viewPages: viewPages)
    }
}
