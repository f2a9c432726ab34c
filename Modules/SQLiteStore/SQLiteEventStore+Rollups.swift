import EventStore
import Foundation

/// The rollup tables (schema migration 5, SQLiteRollups.swift): rebuilding them, and answering a
/// filter from them.
///
/// A filter is answered from the rollups when its time bounds fall on UTC midnights (dates, or
/// times at 00:00:00Z), its app version is not the empty text, and no app it covers waits in
/// `rollup_backlog`; otherwise the reports read the events, with the same answers.
extension SQLiteEventStore {
    /// Brings the rollups of every app key in `rollup_backlog` up to date: replays that app's
    /// stored events in storage order from `next_seq` (0: from the first, its rollups emptied
    /// first), `chunk` per transaction (a collector writing meanwhile waits at most one chunk;
    /// its batches of a waiting app are replayed when their turn comes, not added twice). The
    /// app leaves the backlog in the transaction that replays its last event. Safe to
    /// interrupt: the next call goes on where this one stopped.
    public func rebuildRollups(progress: (RollupProgress) -> Void) throws(StoreError) {
        try rebuildRollups(chunk: 5_000, progress: progress)
    }

    public func rebuildRollups(chunk: Int, progress: (RollupProgress) -> Void = { _ in }) throws(StoreError) {
        let limit = Int64(max(1, chunk))
        var current: RollupProgress?
        while let step = try { () throws(StoreError) in
            let counted = current?.appKey
            return try locked({ db throws(SQLiteError) -> (appKey: String, replayed: Int, done: Bool, left: Int)? in
            try db.transaction { () throws(SQLiteError) -> (appKey: String, replayed: Int, done: Bool, left: Int)? in
                guard let next = try db.query("SELECT app_key, next_seq FROM rollup_backlog ORDER BY app_key LIMIT 1").first else {
                    return nil
                }
                // The other apps' events first, up to the last stored: the watermark then passes
                // every event this chunk replays, so the worker never applies one of them again.
                while try Self.advanceRollups(db, limit: RollupWorker.chunk) == RollupWorker.chunk {}
                let appKey = next[0].text ?? "", from = next[1].int ?? 0
                // What is left of this app, counted once when its rebuild starts or resumes here.
                let left =
                    counted == appKey
                    ? 0 : Int(try db.scalarInt("SELECT COUNT(*) FROM events WHERE +app_key = ? AND seq >= ?", [.text(appKey), .int(from)]) ?? 0)
                // From the first event: the app's rollups are emptied first, in this transaction.
                if from == 0 {
                    for table in Schema.rollupTables { try db.run("DELETE FROM \(table) WHERE app_key = ?", [.text(appKey)]) }
                    try db.run(
                        "DELETE FROM rollup_kind_events WHERE source IN (SELECT number FROM rollup_sources WHERE app_key = ?)", [.text(appKey)])
                }
                // `+app_key`: read the table in `seq` order; through an app key index SQLite
                // would sort all of the app's rows for every chunk.
                let rows = try db.query(
                    "SELECT \(RollupEvent.columns) FROM events WHERE +app_key = ? AND seq >= ? ORDER BY seq LIMIT ?",
                    [.text(appKey), .int(from), .int(limit)])
                for (version, events) in groupedInOrder(rows.lazy.map { ($0[2].text, RollupEvent(row: $0)) }) {
                    try RollupUpdate(db: db, appKey: appKey, appVersion: version).apply(events)
                }
                let done = Int64(rows.count) < limit
                if done {
                    try db.run("DELETE FROM rollup_backlog WHERE app_key = ?", [.text(appKey)])
                } else {
                    try db.run("UPDATE rollup_backlog SET next_seq = ? WHERE app_key = ?", [.int((rows.last?[0].int ?? 0) + 1), .text(appKey)])
                }
                return (appKey, rows.count, done, left)
            }
        })
        }() {
            if current?.appKey != step.appKey { current = RollupProgress(appKey: step.appKey, replayed: 0, total: step.left) }
            current!.replayed += step.replayed
            // Events stored meanwhile are replayed too: the total grows with them.
            current!.total = max(current!.total, current!.replayed)
            progress(current!)
            if step.done { current = nil }
        }
    }

    /// Puts `appKey` (every app when nil) in the backlog to be rebuilt from its first event:
    /// until `rebuildRollups` has replayed its events, reports read the events.
    func resetRollups(appKey: String?) throws(StoreError) {
        try locked { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                let keys =
                    if let appKey { [appKey] } else {
                        try db.query("SELECT DISTINCT app_key FROM rollup_events UNION SELECT DISTINCT app_key FROM events")
                            .compactMap { $0.first?.text }
                    }
                for key in keys {
                    try db.run(
                        "INSERT INTO rollup_backlog (app_key, next_seq) VALUES (?, 0) ON CONFLICT (app_key) DO UPDATE SET next_seq = 0",
                        [.text(key)])
                }
            }
        }
    }

    /// Stops (`true`) or resumes the rollup worker of a writable store: tests of answers while the
    /// rollups lag, and of what a restart finds.
    package func pauseRollupWorker(_ paused: Bool) { rollupWorker?.pause(paused) }

    /// Applies to the rollups the events stored after the watermark, at most `limit`, in one
    /// transaction; returns how many it read. (`RollupWorker` calls it.)
    func advanceRollups(limit: Int) throws(StoreError) -> Int {
        // On the rollups' own connection and write lock (RollupFile.swift): appends go on
        // meanwhile. The file is written without an fsync per transaction: a crash loses a chunk
        // and its watermark together, and the worker applies them again.
        let result: Result<Int, SQLiteError>? = rollupConnection.withLock { c in
            guard let db = c else { return nil }
            do throws(SQLiteError) {
                try db.beginWritingRollups()
                do throws(SQLiteError) {
                    let applied = try Self.advanceRollups(db, limit: limit)
                    try db.execute("COMMIT")
                    return .success(applied)
                } catch {
                    try? db.execute("ROLLBACK")
                    throw error
                }
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) { return try result.get() } catch { throw error.storeError }
    }

    /// Inside the caller's transaction: applies the first `limit` events stored after the
    /// watermark (`rollup_watermark`) to the rollups, except those of apps in `rollup_backlog`
    /// (their rebuild replays them), and moves the watermark past them. Returns how many it read.
    static func advanceRollups(_ db: SQLiteDatabase, limit: Int) throws(SQLiteError) -> Int {
        let watermark = try db.scalarInt("SELECT seq FROM rollup_watermark") ?? 0
        let rows = try db.query(
            "SELECT \(RollupEvent.columns) FROM events WHERE seq > ? ORDER BY seq LIMIT ?", [.int(watermark), .int(Int64(limit))])
        guard let last = rows.last?[0].int else { return 0 }
        let backlog = Set(try db.query("SELECT app_key FROM rollup_backlog").compactMap { $0.first?.text })
        let byApp = groupedInOrder(
            rows.lazy.filter { !backlog.contains($0[1].text ?? "") }.map { r in
                (SourceKey(appKey: r[1].text ?? "", appVersion: r[2].text), RollupEvent(row: r))
            })
        for (source, events) in byApp {
            try RollupUpdate(db: db, appKey: source.appKey, appVersion: source.appVersion).apply(events)
        }
        try db.run("UPDATE rollup_watermark SET seq = ?", [.int(last)])
        return rows.count
    }

    /// Brings the rollups up to every event stored when called, so a report reading them counts
    /// every acknowledged event. A writable store applies what the worker has not yet, itself
    /// (`chunk` per transaction, appends going on between). A read-only store cannot: it waits
    /// for the collector writing the file to pass that event, and returns false (read the
    /// events) when the watermark stands still for a second (no collector running; a loaded
    /// collector can pause a few hundred milliseconds between chunks) or after 5 s.
    func rollupsCurrent() throws(StoreError) -> Bool {
        var (watermark, target) = try rollupPositions()
        if watermark >= target { return true }
        if rollupWorker != nil {
            while try advanceRollups(limit: RollupWorker.chunk) == RollupWorker.chunk, try rollupPositions().watermark < target {}
            return true
        }
        if watermarkStalled.load(ordering: .relaxed) { return false }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        var moved = clock.now
        while watermark < target {
            if clock.now - moved > .seconds(1) {
                watermarkStalled.store(true, ordering: .relaxed)
                return false
            }
            if clock.now > deadline { return false }
            Thread.sleep(forTimeInterval: 0.005)
            let now = try rollupPositions().watermark
            if now != watermark { moved = clock.now }
            watermark = now
        }
        return true
    }

    /// The watermark (the rollups hold every event up to it, but those of apps in the backlog)
    /// and the last event stored: how far the rollups lag (`ingest-bench --sustain`).
    package func rollupPositions() throws(StoreError) -> (watermark: Int64, last: Int64) {
        let r = try read("SELECT (SELECT seq FROM rollup_watermark), (SELECT COALESCE(MAX(seq), 0) FROM events)").first
        return (r?[0].int ?? 0, r?[1].int ?? 0)
    }

    /// True when the rollups cannot answer for `appKey` (any app when nil) now: it waits in
    /// `rollup_backlog`, or (a read-only store) the rollups lag the events (`rollupsCurrent`).
    func rollupsWait(appKey: String?) throws(StoreError) -> Bool {
        guard try rollupsCurrent() else { return true }
        let backlog = try read("SELECT app_key FROM rollup_backlog").compactMap { $0.first?.text }
        return appKey.map { backlog.contains($0) } ?? !backlog.isEmpty
    }

    /// `filter` as conditions on the rollup tables, or nil when they cannot answer it.
    func rollupFilter(_ filter: EventFilter) throws(StoreError) -> RollupFilter? {
        if let s = filter.since, !UTCDay.isStart(s) { return nil }
        if let u = filter.until, !UTCDay.isStart(u) { return nil }
        if filter.appVersion == "" { return nil }
        if try rollupsWait(appKey: filter.appKey) { return nil }
        return RollupFilter(
            appKey: filter.appKey, appVersion: filter.appVersion, sinceDay: filter.since.map(UTCDay.number(of:)),
            untilDay: filter.until.map(UTCDay.number(of:)))
    }

    public func activityRollup(_ filter: EventFilter) throws(StoreError) -> ActivityRollup? {
        guard let f = try rollupFilter(filter) else { return nil }
        var rollup = ActivityRollup()
        // Days: events, then distinct ids (across versions unless one version is asked for).
        var days: [Int64: ActivityRollup.Day] = [:]
        let e = f.sql(day: "day")
        for r in try read("SELECT day, SUM(events) FROM rollup_events\(e.where()) GROUP BY day", e.parameters) {
            let n = r[0].int ?? 0
            days[n] = ActivityRollup.Day(number: n, events: Int(r[1].int ?? 0), actors: 0, devices: 0, sessions: 0)
        }
        var ids = f.sql(day: "day")
        ids.conditions.append("all_versions = ?")
        ids.parameters.append(.int(f.appVersion == nil ? 1 : 0))
        for r in try read("SELECT day, kind, SUM(distinct_ids) FROM rollup_actor_counts\(ids.where()) GROUP BY day, kind", ids.parameters) {
            let n = r[0].int ?? 0, count = Int(r[2].int ?? 0)
            switch r[1].text {
            case "a": days[n]?.actors = count
            case "d": days[n]?.devices = count
            default: days[n]?.sessions = count
            }
        }
        rollup.days = Array(days.values)
        rollup.dwell = try dwell(f)
        // Transitions: both enters in range.
        let t = f.sql(day: nil, firstDay: "from_day", lastDay: "to_day")
        rollup.transitions = try read(
            "SELECT from_page, to_page, SUM(transitions) FROM rollup_transitions\(t.where()) GROUP BY from_page, to_page", t.parameters
        ).map { ActivityRollup.Transition(from: $0[0].text ?? "", to: $0[1].text ?? "", count: Int($0[2].int ?? 0)) }
        rollup.bursts = try bursts(f)
        let v = f.sql(day: "day")
        for r in try read("SELECT view, page, MIN(first_seq) FROM rollup_view_pages\(v.where()) GROUP BY view", v.parameters) {
            rollup.viewPages[r[0].text ?? ""] = r[1].text ?? ""
        }
        try mergeDeviceLinks(into: &rollup, f)
        return rollup
    }

    /// Dwell percentiles per page: the buckets' counts give the bucket and the rank within it of
    /// each percentile's value, then that bucket's exact values (per day) give the value. The
    /// buckets without days serve the whole time.
    private func dwell(_ f: RollupFilter) throws(StoreError) -> [DwellPercentiles] {
        let ranged = f.sinceDay != nil || f.untilDay != nil
        let c = ranged ? f.sql(day: "day") : f.sql()
        var pages: [(page: String, buckets: [(first: Int64, leaves: Int)])] = []
        for r in try read(
            """
            SELECT page, bucket, SUM(leaves) FROM \(ranged ? "rollup_dwell_day_buckets" : "rollup_dwell_buckets")\(c.where())
            GROUP BY page, bucket ORDER BY page, bucket
            """, c.parameters)
        {
            let page = r[0].text ?? ""
            if pages.last?.page != page { pages.append((page, [])) }
            pages[pages.count - 1].buckets.append((r[1].int ?? 0, Int(r[2].int ?? 0)))
        }
        return try pages.map { (page, buckets) throws(StoreError) in
            let n = buckets.reduce(0) { $0 + $1.leaves }
            func percentile(_ p: Int) throws(StoreError) -> Int64 {
                var rank = ActivityRollup.nearestRank(p, of: n)
                var first: Int64?
                for b in buckets {
                    if rank <= b.leaves {
                        first = b.first
                        break
                    }
                    rank -= b.leaves
                }
                guard let first else { return 0 }
                var v = c
                v.conditions += ["page = ?", "duration BETWEEN ? AND ?"]
                v.parameters += [.text(page), .int(first), .int(DwellBucket.last(ofBucket: first))]
                for r in try read(
                    "SELECT duration, SUM(leaves) FROM rollup_dwell_days\(v.where()) GROUP BY duration ORDER BY duration",
                    v.parameters)
                {
                    rank -= Int(r[1].int ?? 0)
                    if rank <= 0 { return r[0].int ?? 0 }
                }
                return first
            }
            return DwellPercentiles(page: page, leaves: n, p50: try percentile(50), p90: try percentile(90))
        }
    }

    /// Bursts of clicks in range: the runs wholly inside it, and the runs a bound cuts, counted
    /// again over their clicks inside the range (a run is every click of its actor and view
    /// between its first and last, so those clicks are one run again).
    private func bursts(_ f: RollupFilter) throws(StoreError) -> [ActivityRollup.Burst] {
        var inner = f.sql(day: nil, firstDay: "start_day", lastDay: "end_day")
        inner.conditions.append("clicks >= \(ActivityRollup.rageMinimumClicks)")
        // The partial indexes hold every column read (a table without rowid's index has its key).
        var bursts = try read("SELECT view, app_key, actor, clicks FROM rollup_click_runs INDEXED BY rollup_bursts\(inner.where())", inner.parameters).map {
            ActivityRollup.Burst(view: $0[0].text ?? "", appKey: $0[1].text ?? "", actor: $0[2].text ?? "", clicks: Int($0[3].int ?? 0))
        }
        var cut = Set<[SQLiteValue]>()
        for bound in [f.sinceDay, f.untilDay].compactMap({ $0 }) {
            var c = f.sql(day: nil)
            // `start_day <> end_day`: the condition of the small index of runs over midnight.
            c.conditions += ["start_day <> end_day", "start_day < ?", "end_day >= ?"]
            c.parameters += [.int(bound), .int(bound)]
            for r in try read(
                "SELECT app_key, app_version, actor, view, start_ts, end_ts FROM rollup_click_runs INDEXED BY rollup_runs_over_midnight\(c.where())",
                c.parameters)
            {
                cut.insert(r)
            }
        }
        let from = f.sinceDay.map { $0 * UTCDay.milliseconds } ?? Int64.min
        let to = f.untilDay.map { $0 * UTCDay.milliseconds - 1 } ?? Int64.max
        for r in cut {
            let start = max(r[4].int ?? 0, from), end = min(r[5].int ?? 0, to)
            guard start <= end else { continue }
            let clicks = try read(
                """
                SELECT COUNT(*) FROM events WHERE app_key = ? AND corrected_ts >= ? AND corrected_ts <= ? AND type = 'click'
                AND COALESCE(app_version, '') = ? AND \(ActorKind.user.sentIDColumn) = ? AND COALESCE(path, name) = ?
                """, [r[0], .int(start), .int(end), r[1], r[2], r[3]]
            ).first?.first?.int ?? 0
            if clicks >= ActivityRollup.rageMinimumClicks {
                bursts.append(ActivityRollup.Burst(view: r[3].text ?? "", appKey: r[0].text ?? "", actor: r[2].text ?? "", clicks: Int(clicks)))
            }
        }
        return bursts
    }
}

/// An `EventFilter` whose time bounds are whole days, as conditions on a rollup table.
struct RollupFilter {
    var appKey: String?
    var appVersion: String?
    /// First day in range.
    var sinceDay: Int64?
    /// First day after the range.
    var untilDay: Int64?

    /// Conditions on the columns `app_key`, `app_version` and the day columns named: `day` for
    /// a table of one day per row, else `firstDay` at or after `sinceDay` and `lastDay` before
    /// `untilDay`. (A version asked for is never '', so tables that key no version as '' take
    /// the same condition.)
    func sql(day: String? = nil, firstDay: String? = nil, lastDay: String? = nil) -> EventFilterSQL {
        var s = EventFilterSQL(EventFilter(), table: "")
        if let k = appKey {
            s.conditions.append("app_key = ?")
            s.parameters.append(.text(k))
        }
        if let v = appVersion {
            s.conditions.append("app_version = ?")
            s.parameters.append(.text(v))
        }
        if let since = sinceDay, let column = firstDay ?? day {
            s.conditions.append("\(column) >= ?")
            s.parameters.append(.int(since))
        }
        if let until = untilDay, let column = lastDay ?? day {
            s.conditions.append("\(column) < ?")
            s.parameters.append(.int(until))
        }
        return s
    }
}
