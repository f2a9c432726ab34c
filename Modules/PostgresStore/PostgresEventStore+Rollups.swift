public import EventStore
import StoreSQL

/// The report's behaviour figures from the rollup tables plus the tail (PostgresRollups.swift),
/// and bringing the rollups up to date on demand.
extension PostgresEventStore {
    /// Adds every event after the watermark to the rollups (the builder thread's work, done
    /// here and now: `prune`, benchmarks), then returns. Calls `progress` after each chunk.
    public func rebuildRollups(progress: (RollupProgress) -> Void) throws(StoreError) {
        var done = 0
        while let added = try withConnection({ c throws(PostgresError) in try PostgresRollups.buildStep(c, chunk: 50_000) }) {
            done += added
            progress(RollupProgress(appKey: "", replayed: done, total: done))
        }
    }

    /// The rows of the statement `build` makes from `filter`, each read by `row`, in one
    /// repeatable-read snapshot whose watermark the filter carries (its tail is planned with the value).
    func readRolledUp<T>(
        _ filter: PostgresRollupFilter, _ build: (PostgresRollupFilter) -> SQLQuery,
        row: (PostgresRow) throws(SQLDecodingError) -> T
    ) throws(StoreError) -> [T] {
        try withConnection { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) -> [T] in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                var a = filter
                a.watermark = try PostgresRollups.watermark(c)
                return try c.execute(build(a)).decode(row)
            }
        }
    }

    /// The whole `ActivityRollup` in one snapshot (a repeatable-read transaction), for filters
    /// whose bounds are whole days and whose app version is not the empty text (the tables key a
    /// missing version as ''); nil otherwise (the analytics then scan).
    public func activityRollup(_ filter: EventFilter) throws(StoreError) -> ActivityRollup? {
        guard filter.appVersion != "", let f = PostgresRollupFilter(filter) else { return nil }
        let links = try deviceLinks(appKey: filter.appKey)
        let rows = try withConnection(retryOnStale: true) { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) -> ActivityRows in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                // Distinct ids are counted in memory, not in sorted runs on disk.
                try c.execute("SET LOCAL work_mem = '64MB'")
                var a = f
                a.watermark = try PostgresRollups.watermark(c)
                let reader = ActivityReader(c: c, a: a, links: links)
                var rows = ActivityRows()
                rows.days = try reader.days()
                rows.ids = try reader.ids()
                rows.buckets = try reader.buckets()
                rows.dwell = { page, bucket throws(PostgresError) in try reader.dwell(page: page, bucket: bucket) }
                rows.dwellValues = try rows.percentileRows()
                rows.transitions = try reader.transitions()
                rows.bursts = try reader.read(bursts(a)) { r throws(SQLDecodingError) in
                    ActivityRollup.Burst(view: try r["view"], appKey: try r["app_key"], actor: try r["actor"], clicks: try r["clicks"])
                }
                rows.viewPages = try reader.viewPages()
                return rows
            }
        }
        var rollup = rows.rollup()
        rollup.mergeBurstActors(links)
        return rollup
    }
}

/// The reads of one `activityRollup`, each one statement over the rollups plus the tail, in
/// the caller's snapshot.
private struct ActivityReader {
    let c: PostgresConnection
    /// Its watermark set to the snapshot's.
    var a: PostgresRollupFilter
    let links: DeviceLinks

    func read<T>(_ query: SQLQuery, _ row: (PostgresRow) throws(SQLDecodingError) -> T) throws(PostgresError) -> [T] {
        try c.execute(query).decode(row)
    }

    func days() throws(PostgresError) -> [ActivityRollup.Day] {
        return try read(
            """
            SELECT day, SUM(n) AS n FROM (SELECT day, events AS n FROM agg_events\(a.table(version: "app_version"))
                                          UNION ALL SELECT day, 1 FROM \(a.tail())) AS x GROUP BY day
            """
        ) { r throws(SQLDecodingError) in ActivityRollup.Day(day: UTCDay(number: try r["day"]), events: try r["n"], actors: 0, devices: 0, sessions: 0) }
    }

    func ids() throws(PostgresError) -> [(day: Int64, kind: String, count: Int)] {
        // Identity merge: a merged device's actor digest counts as its user's. The counts
        // (`agg_id_counts`) plus the tail's ids new to `agg_ids` count ids as sent; then, per
        // day, each merged device present is taken off and each of their users not
        // otherwise present is added (`present`: the merged devices' and users' digests
        // on each counted day, looked up by key).
        let version: SQLQuery = a.appVersion.map { " AND i.v = \($0)" } ?? ""
        let counts = a.table(a.appVersion == nil ? "all_versions" : "NOT all_versions")
        // `OFFSET 0` keeps each lookup a probe of `agg_ids`' primary key per row asked about
        // (PostgreSQL does not pull a subquery with an offset up into a join): as a join it
        // hashes all of `agg_ids`, which grows with every stored day, for the tail's few
        // thousand ids.
        func inAgg(_ day: String, _ kind: String, _ h: String) -> SQLQuery {
            "EXISTS (SELECT 1 FROM agg_ids AS i WHERE i.day = \(raw: day) AND i.kind = \(raw: kind) AND i.h = \(raw: h)\(version) OFFSET 0)"
        }
        return try read(
            """
            \(links.digestsClause()),
            t AS MATERIALIZED (
                SELECT day, kind, \(raw: PostgresRollups.digest("app_key", "id")) AS h
                FROM (SELECT DISTINCT day, kind, app_key, id FROM (\(PostgresRollups.idRows(a.tail()))) AS i) AS d),
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
            SELECT day, kind, sum(n) AS n FROM (SELECT day, kind, n FROM c UNION ALL SELECT day, 'a'::"char", n FROM fix) AS x
            GROUP BY day, kind
            """
        ) { r throws(SQLDecodingError) in (day: try r["day", as: Int64.self], kind: try r["kind", as: String.self], count: try r["n", as: Int.self]) }
    }

    func buckets() throws(PostgresError) -> [(page: String, first: Int64, leaves: Int)] {
        return try read(
            """
            SELECT page, bucket, SUM(n) AS n FROM (SELECT page, bucket, leaves AS n FROM agg_dwell_buckets\(a.table())
                                                   UNION ALL SELECT page, \(raw: PostgresRollups.bucket("duration")), 1 FROM (\(PostgresRollups.dwellRows(a.tail()))) AS d) AS x
            GROUP BY page, bucket ORDER BY page COLLATE "C", bucket
            """
        ) { r throws(SQLDecodingError) in (page: try r["page", as: String.self], first: try r["bucket", as: Int64.self], leaves: try r["n", as: Int.self]) }
    }

    /// One page's exact durations with their leaves in one bucket, ascending.
    func dwell(page: String, bucket: Int64) throws(PostgresError) -> [(duration: Int64, leaves: Int)] {
        let p = PostgresText.encode(page)
        return try read(
            """
            SELECT duration, SUM(n) AS n FROM (
                SELECT duration, leaves AS n FROM agg_dwell\(a.table("page = \(p)", "bucket = \(bucket)"))
                UNION ALL SELECT duration, 1 FROM (\(PostgresRollups.dwellRows(a.tail()))) AS d
                          WHERE page = \(p) AND \(raw: PostgresRollups.bucket("duration")) = \(bucket)
            ) AS x GROUP BY duration ORDER BY duration
            """
        ) { r throws(SQLDecodingError) in (duration: try r["duration", as: Int64.self], leaves: try r["n", as: Int.self]) }
    }

    func transitions() throws(PostgresError) -> [ActivityRollup.Transition] {
        return try read(
            """
            WITH new AS MATERIALIZED (\(PostgresRollups.enterRows(a.tail(timed: false)))), \(PostgresRollups.transitionDelta(new: "new"))
            SELECT from_page, to_page, SUM(n) AS n FROM (
                SELECT from_page, to_page, n FROM agg_transitions\(a.table(firstDay: "from_day", lastDay: "to_day"))
                UNION ALL SELECT from_page, to_page, n FROM delta\(a.table(version: "v", firstDay: "from_day", lastDay: "to_day"))
            ) AS x GROUP BY from_page, to_page
            """
        ) { r throws(SQLDecodingError) in ActivityRollup.Transition(from: try r["from_page"], to: try r["to_page"], count: try r["n"]) }
    }

    func viewPages() throws(PostgresError) -> [(view: String, page: String)] {
        return try read(
            """
            SELECT DISTINCT ON (view) view, page FROM (
                SELECT view, first_seq AS seq, page FROM agg_view_pages\(a.table())
                UNION ALL SELECT view, seq, page FROM (\(PostgresRollups.viewPageRows(a.tail()))) AS p
            ) AS x ORDER BY view, seq
            """
        ) { r throws(SQLDecodingError) in (view: try r["view", as: String.self], page: try r["page", as: String.self]) }
    }
}

extension PostgresEventStore {
    /// The click bursts of `a`'s range: the stored runs wholly inside it, and the runs made again
    /// from the clicks of the runs a bound cuts and of the tail's sequences (`special`).
    private func bursts(_ a: PostgresRollupFilter) -> SQLQuery {
        let clicks = "h, t, seq, app_key, v, actor, view"
        var cut: [SQLQuery] = []
        for bound in [a.since, a.until].compactMap({ $0 }) {
            let d = UTCDay.number(of: bound)
            cut.append("(start_day < \(d) AND end_day >= \(d))")
        }
        let cutRuns: SQLQuery =
            cut.isEmpty ? "" : " UNION SELECT h FROM agg_runs\(a.table(firstDay: nil, lastDay: nil, "(\(SQLQuery.joined(cut, separator: " OR ")))"))"
        let inner = a.table(firstDay: "start_day", lastDay: "end_day", "h NOT IN (SELECT h FROM special)")
        let aggClicks = SQLQuery.where(["h IN (SELECT h FROM special)"] + a.times("t"))
        let tailClicks = SQLQuery.where(a.times("t"))
        return """
            WITH tc AS MATERIALIZED (\(PostgresRollups.clickRows(a.tail(timed: false)))),
            special AS MATERIALIZED (SELECT h FROM tc\(cutRuns))
            SELECT view, app_key, actor, clicks FROM agg_runs\(inner)
            UNION ALL
            SELECT view, app_key, actor, clicks FROM (\(PostgresRollups.runs(
                "SELECT \(raw: clicks) FROM agg_clicks\(aggClicks) UNION ALL SELECT \(raw: clicks) FROM tc\(tailClicks)"))) AS r
            """
    }
}

/// The rows `activityRollup` read, turned into an `ActivityRollup`.
private struct ActivityRows {
    var days: [ActivityRollup.Day] = []
    var ids: [(day: Int64, kind: String, count: Int)] = []
    /// Per page (in order) and bucket, the leaves.
    var buckets: [(page: String, first: Int64, leaves: Int)] = []
    /// One page's exact durations with their leaves in one bucket, ascending.
    var dwell: (String, Int64) throws(PostgresError) -> [(duration: Int64, leaves: Int)] = { _, _ in [] }
    var dwellValues: [DwellPercentiles] = []
    var transitions: [ActivityRollup.Transition] = []
    var bursts: [ActivityRollup.Burst] = []
    var viewPages: [(view: String, page: String)] = []

    /// Dwell percentiles per page: the buckets' counts give the bucket and the rank within it of
    /// each percentile's value, then that bucket's exact values give the value.
    func percentileRows() throws(PostgresError) -> [DwellPercentiles] {
        var pages: [(page: String, buckets: [(first: Int64, leaves: Int)])] = []
        for r in buckets {
            if pages.last?.page != r.page { pages.append((r.page, [])) }
            pages[pages.count - 1].buckets.append((r.first, r.leaves))
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
                    rank -= r.leaves
                    if rank <= 0 { return r.duration }
                }
                return bucket.first
            }
            return DwellPercentiles(page: page, leaves: n, p50: try percentile(50), p90: try percentile(90))
        }
    }

    func rollup() -> ActivityRollup {
        var days: [Int64: ActivityRollup.Day] = [:]
        for d in self.days { days[d.day.number] = d }
        for r in ids {
            switch r.kind {
            case "a": days[r.day]?.actors = r.count
            case "d": days[r.day]?.devices = r.count
            default: days[r.day]?.sessions = r.count
            }
        }
        var viewPages: [String: String] = [:]
        for r in self.viewPages { viewPages[r.view] = r.page }
        return ActivityRollup(days: Array(days.values), dwell: dwellValues, transitions: transitions, bursts: bursts, viewPages: viewPages)
    }
}
