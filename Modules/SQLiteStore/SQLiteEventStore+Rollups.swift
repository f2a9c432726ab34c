public import EventStore
import Foundation
import StoreSQL
import Synchronization

/// The rollup tables (schema migration 5, SQLiteRollups.swift): rebuilding them, and answering a
/// filter from them.
///
/// A filter is answered from the rollups when its time bounds fall on UTC midnights (dates, or
/// times at 00:00:00Z), its app version is not the empty text, and no app it covers waits in
/// `rollup_backlog`; otherwise the reports read the events, with the same answers.
extension SQLiteEventStore {
    /// Brings the rollups of every app key in a backlog (each rollups file has its own,
    /// `RollupPart.backlog`) up to date: replays that app's stored events in storage order from
    /// its `next_seq` in each file (0: from the first, its rollups there emptied first), `chunk`
    /// per transaction (a collector writing meanwhile waits at most one chunk; its batches of a
    /// waiting app are replayed when their turn comes, not added twice). The app leaves a file's
    /// backlog in the transaction that replays its last event there. Safe to interrupt: the next
    /// call goes on where this one stopped, in each file.
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
                let waiting = RollupPart.allCases.map { "SELECT app_key FROM \($0.backlog)" }.joined(separator: " UNION ")
                guard
                    let appKey = try db.query(SQLQuery(raw: "SELECT app_key FROM (\(waiting)) ORDER BY app_key LIMIT 1"), {
                        r throws(SQLDecodingError) in try r.decode("app_key", as: String.self)
                    }).first
                else {
                    return nil
                }
                var step = (appKey: appKey, replayed: 0, done: true, left: 0)
                for part in RollupPart.allCases {
                    guard let from = try db.scalar("SELECT next_seq FROM \(raw: part.backlog) WHERE app_key = \(appKey)", as: Int64.self)
                    else { continue }
                    // The other apps' events first, up to the last stored: the watermark then
                    // passes every event this chunk replays, so the worker never applies one of
                    // them again. What this transaction learns of the tables is for it alone (the
                    // worker's memory is emptied by its commit: RollupMemory.swift).
                    var memory = RollupMemory()
                    while try Self.advanceRollups(db, part, limit: StoreTuning.rollupChunk, memory: &memory) == StoreTuning.rollupChunk {}
                    // What is left of this app, counted once when its rebuild starts or resumes here.
                    if counted != appKey {
                        let left = try db.scalar("SELECT COUNT(*) AS n FROM events WHERE +app_key = \(appKey) AND seq >= \(from)", as: Int.self)
                        step.left = max(step.left, left ?? 0)
                    }
                    // From the first event: the app's rollups are emptied first, in this transaction.
                    if from == 0 {
                        for table in part.appTables { try db.run("DELETE FROM \(raw: table) WHERE app_key = \(appKey)") }
                        if part == .kinds { try KindEventBlocks.deleteEntries(ofAppKey: appKey, in: db) }
                        memory.clear()
                    }
                    // `+app_key`: read the table in `seq` order; through an app key index SQLite
                    // would sort all of the app's rows for every chunk.
                    let rows = try RollupEvent.read(
                        "SELECT \(raw: RollupEvent.columns(part)) FROM events WHERE +app_key = \(appKey) AND seq >= \(from) ORDER BY seq LIMIT \(limit)",
                        in: db)
                    for (version, events) in groupedInOrder(rows.lazy.map { ($0.appVersion, $0) }) {
                        try RollupUpdate(db: db, appKey: appKey, appVersion: version).apply(events, part, memory: &memory)
                    }
                    if Int64(rows.count) < limit {
                        try db.run("DELETE FROM \(raw: part.backlog) WHERE app_key = \(appKey)")
                    } else {
                        try db.run("UPDATE \(raw: part.backlog) SET next_seq = \((rows.last?.seq ?? 0) + 1) WHERE app_key = \(appKey)")
                        step.done = false
                    }
                    step.replayed = max(step.replayed, rows.count)
                }
                return step
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

    /// Puts `appKey` (every app when nil) in the backlog of both rollups files, to be rebuilt
    /// from its first event: until `rebuildRollups` has replayed its events, reports read the
    /// events.
    func resetRollups(appKey: String?) throws(StoreError) {
        try locked { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                let keys =
                    if let appKey { [appKey] } else {
                        try db.query("SELECT DISTINCT app_key FROM rollup_events UNION SELECT DISTINCT app_key FROM events") {
                            r throws(SQLDecodingError) in try r.decode("app_key", as: String.self)
                        }
                    }
                for key in keys {
                    for part in RollupPart.allCases {
                        try db.run(
                            "INSERT INTO \(raw: part.backlog) (app_key, next_seq) VALUES (\(key), 0) ON CONFLICT (app_key) DO UPDATE SET next_seq = 0")
                    }
                }
            }
        }
    }

    /// Stops (`true`) or resumes the rollup workers of a writable store (of `part` alone when
    /// given): tests of answers while the rollups lag, and of what a restart finds.
    package func pauseRollupWorker(_ paused: Bool, part: RollupPart? = nil) {
        for worker in rollupWorkers where part.map({ $0 == worker.part }) ?? true { worker.pause(paused) }
    }

    /// Events each rollup worker applied from the hand-off (not read back from `events`), by
    /// part: what `ingest-bench` prints, and tests check.
    package var rollupEventsFromMemory: [RollupPart: Int] {
        Dictionary(uniqueKeysWithValues: rollupWorkers.map { ($0.part, $0.handoff.takenEvents.load(ordering: .relaxed)) })
    }

    /// Applies to the rollups of `part` the events stored after its watermark, at most `limit`,
    /// in one transaction; returns how many it read. (Its `RollupWorker` calls it.)
    func advanceRollups(_ part: RollupPart, limit: Int) throws(StoreError) -> Int {
        // On the part's own connection and write lock (RollupFile.swift): appends and the other
        // part go on meanwhile. The file is written without an fsync per transaction: a crash
        // loses a chunk and its watermark together, and the worker applies them again.
        guard let worker = rollupWorkers.first(where: { $0.part == part }) else {
            throw StoreError(.closed, "the database \(path) is open read-only: its rollups are applied by the collector")
        }
        let result: Result<Int, SQLiteError>? = worker.connection.withLock { c in
            guard let db = c else { return nil }
            do throws(SQLiteError) {
                try RollupFile.beginWriting(part, on: db)
                do throws(SQLiteError) {
                    // What earlier chunks learnt of the rollup tables, moved out: a chunk that
                    // fails leaves none. The file's data_version, read holding its write lock,
                    // moved when another connection wrote it since (a rebuild, a prune, a
                    // migration, another process): then the tables may differ from the memory.
                    var memory = worker.takeMemory()
                    let version = try db.scalar("PRAGMA \(raw: part.schema).data_version", as: Int64.self)
                    if memory.dataVersion != version {
                        memory.clear()
                        memory.dataVersion = version
                    }
                    let applied = try Self.advanceRollups(db, part, limit: limit, memory: &memory, handoff: worker.handoff)
                    try db.execute("COMMIT")
                    worker.keepMemory(memory)
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
    /// watermark of `part` to its rollups, except those of apps in its backlog (their rebuild
    /// replays them), and moves the watermark past them. Returns how many it read. `memory` says
    /// what the tables hold (RollupMemory.swift) and learns what this adds.
    ///
    /// The events come from `handoff` (the rows `ingest-store` stored, in memory) while its runs
    /// follow the watermark seq after seq; the others (a gap: a run dropped, rows stored before
    /// this process, by another, or before a crash) are read from `events`, up to the next run.
    static func advanceRollups(
        _ db: SQLiteDatabase, _ part: RollupPart, limit: Int, memory: inout RollupMemory, handoff: RollupHandoff? = nil
    ) throws(SQLiteError) -> Int {
        let watermark = try db.scalar("SELECT seq FROM \(raw: part.watermark)", as: Int64.self) ?? 0
        var texts = RollupTexts()
        var rows: [RollupEvent] = []
        var after = watermark
        // Each pass takes or reads at least one event, or ends.
        while rows.count < limit {
            let (taken, next) = handoff?.take(after: after, limit: limit - rows.count) ?? ([], nil)
            for t in taken { try RollupEvent.events(of: t, part, db: db, texts: &texts, into: &rows) }
            if !taken.isEmpty {
                after = rows.last?.seq ?? after
                continue
            }
            let read = rows.count
            func readBack(before: Int64?) throws(SQLiteError) {
                let bound = before.map { " AND seq < \($0)" } ?? ""
                try RollupEvent.read(
                    "SELECT \(raw: RollupEvent.columns(part)) FROM events WHERE seq > \(after)\(raw: bound) ORDER BY seq LIMIT \(limit - rows.count)",
                    in: db, texts: &texts, into: &rows)
            }
            try readBack(before: next)
            // Nothing stored before the next run (seqs never stored): from `events` past it too.
            if rows.count == read, next != nil { try readBack(before: nil) }
            guard rows.count > read, let last = rows.last?.seq else { break }
            after = last
        }
        guard let last = rows.last?.seq else { return 0 }
        let backlog = Set(
            try db.query("SELECT app_key FROM \(raw: part.backlog)") { r throws(SQLDecodingError) in try r.decode("app_key", as: String.self) })
        // By app key and version: their numbers in the chunk (`RollupEvent.ids`), not their texts.
        let byApp = groupedInOrder(
            rows.lazy.filter { backlog.isEmpty || !backlog.contains($0.appKey) }.map { e in
                (Int64(e.ids.appKey) << 32 | Int64(UInt32(bitPattern: e.ids.appVersion)), e)
            })
        for (_, events) in byApp {
            try RollupUpdate(db: db, appKey: events[0].appKey, appVersion: events[0].appVersion).apply(events, part, memory: &memory)
        }
        try db.run("UPDATE \(raw: part.watermark) SET seq = \(last)")
        return rows.count
    }

    /// Brings the rollups up to every event stored when called, so a report reading them counts
    /// every acknowledged event. A writable store applies what the workers have not yet, itself,
    /// file by file (`chunk` per transaction, appends going on between). A read-only store
    /// cannot: it waits for the collector writing the files to pass that event with both
    /// watermarks, and returns false (read the events) at once when no collector owns the ingest
    /// journal, when the lower watermark stands still for `StoreTuning.watermarkStallBound` (a
    /// collector that stopped applying), or after 5 s.
    func rollupsCurrent() throws(StoreError) -> Bool {
        var (watermark, target) = try rollupPositions()
        if watermark >= target { return true }
        if !rollupWorkers.isEmpty {
            for part in RollupPart.allCases {
                while try advanceRollups(part, limit: StoreTuning.rollupChunk) == StoreTuning.rollupChunk, try rollupPositions(part).watermark < target {}
            }
            return true
        }
        if watermarkStalled.load(ordering: .relaxed) { return false }
        // Nobody owns the ingest journal: no collector runs to move the watermark.
        if (try? IngestLog.isOwned(database: path)) == false {
            watermarkStalled.store(true, ordering: .relaxed)
            return false
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(5)
        var moved = clock.now
        while watermark < target {
            if clock.now - moved > StoreTuning.watermarkStallBound {
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

    /// The lower of the two files' watermarks (the rollups hold every event up to it, but those
    /// of apps in a backlog) and the last event stored: how far the rollups lag, the larger lag
    /// of the two files (`ingest-bench --sustain`).
    package func rollupPositions() throws(StoreError) -> (watermark: Int64, last: Int64) {
        let watermarks = RollupPart.allCases.map { "(SELECT seq FROM \($0.watermark))" }.joined(separator: ", ")
        return try read(SQLQuery(raw: "SELECT MIN(\(watermarks)) AS watermark, (SELECT COALESCE(MAX(seq), 0) FROM events) AS last")) {
            r throws(SQLDecodingError) in (try r.decode("watermark", as: Int64?.self) ?? 0, try r.decode("last", as: Int64.self))
        }.first ?? (0, 0)
    }

    /// The watermark of `part` and the last event stored.
    package func rollupPositions(_ part: RollupPart) throws(StoreError) -> (watermark: Int64, last: Int64) {
        try read(SQLQuery(raw: "SELECT (SELECT seq FROM \(part.watermark)) AS watermark, (SELECT COALESCE(MAX(seq), 0) FROM events) AS last")) {
            r throws(SQLDecodingError) in (try r.decode("watermark", as: Int64?.self) ?? 0, try r.decode("last", as: Int64.self))
        }.first ?? (0, 0)
    }

    /// True when the rollups cannot answer for `appKey` (any app when nil) now: it waits in
    /// either file's backlog, or (a read-only store) the rollups lag the events (`rollupsCurrent`).
    func rollupsWait(appKey: String?) throws(StoreError) -> Bool {
        guard try rollupsCurrent() else { return true }
        let waiting = RollupPart.allCases.map { "SELECT app_key FROM \($0.backlog)" }.joined(separator: " UNION ")
        let backlog = try read(SQLQuery(raw: waiting)) { r throws(SQLDecodingError) in try r.decode("app_key", as: String.self) }
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
        let e = SQLQuery.where(f.conditions(day: "day"))
        for day in try read("SELECT day, SUM(events) AS n FROM rollup_events\(e) GROUP BY day", { r throws(SQLDecodingError) in
            ActivityRollup.Day(day: UTCDay(number: try r.decode("day")), events: try r.decode("n"), actors: 0, devices: 0, sessions: 0)
        }) {
            days[day.day.number] = day
        }
        let ids = SQLQuery.where(f.conditions(day: "day") + ["all_versions = \(f.appVersion == nil)"])
        let counts = try read("SELECT day, kind, SUM(distinct_ids) AS n FROM rollup_actor_counts\(ids) GROUP BY day, kind") {
            r throws(SQLDecodingError) in (day: try r.decode("day", as: Int64.self), kind: try r.decode("kind", as: String.self), count: try r.decode("n", as: Int.self))
        }
        for (n, kind, count) in counts {
            switch kind {
            case "a": days[n]?.actors = count
            case "d": days[n]?.devices = count
            default: days[n]?.sessions = count
            }
        }
        rollup.days = Array(days.values)
        rollup.dwell = try dwell(f)
        // Transitions: both enters in range.
        let t = SQLQuery.where(f.conditions(firstDay: "from_day", lastDay: "to_day"))
        rollup.transitions = try read(
            "SELECT from_page, to_page, SUM(transitions) AS n FROM rollup_transitions\(t) GROUP BY from_page, to_page"
        ) { r throws(SQLDecodingError) in
            ActivityRollup.Transition(from: try r.decode("from_page"), to: try r.decode("to_page"), count: try r.decode("n"))
        }
        rollup.bursts = try bursts(f)
        let v = SQLQuery.where(f.conditions(day: "day"))
        let viewPages = try read("SELECT view, page, MIN(first_seq) FROM rollup_view_pages\(v) GROUP BY view") {
            r throws(SQLDecodingError) in (view: try r.decode("view", as: String.self), page: try r.decode("page", as: String.self))
        }
        for (view, page) in viewPages { rollup.viewPages[view] = page }
        try mergeDeviceLinks(into: &rollup, f)
        return rollup
    }

    /// Dwell percentiles per page: the buckets' counts give the bucket and the rank within it of
    /// each percentile's value, then that bucket's exact values (per day) give the value. The
    /// buckets without days serve the whole time.
    private func dwell(_ f: RollupFilter) throws(StoreError) -> [DwellPercentiles] {
        let ranged = f.sinceDay != nil || f.untilDay != nil
        let c = ranged ? f.conditions(day: "day") : f.conditions()
        var pages: [(page: String, buckets: [(first: Int64, leaves: Int)])] = []
        let buckets = try read(
            """
            SELECT page, bucket, SUM(leaves) AS leaves FROM \(raw: ranged ? "rollup_dwell_day_buckets" : "rollup_dwell_buckets")\(SQLQuery.where(c))
            GROUP BY page, bucket ORDER BY page, bucket
            """
        ) { r throws(SQLDecodingError) in
            (page: try r.decode("page", as: String.self), first: try r.decode("bucket", as: Int64.self), leaves: try r.decode("leaves", as: Int.self))
        }
        for (page, first, leaves) in buckets {
            if pages.last?.page != page { pages.append((page, [])) }
            pages[pages.count - 1].buckets.append((first, leaves))
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
                let v = SQLQuery.where(c + ["page = \(page)", "duration BETWEEN \(first) AND \(DwellBucket.last(ofBucket: first))"])
                let values = try read("SELECT duration, SUM(leaves) AS leaves FROM rollup_dwell_days\(v) GROUP BY duration ORDER BY duration") {
                    r throws(SQLDecodingError) in (duration: try r.decode("duration", as: Int64.self), leaves: try r.decode("leaves", as: Int.self))
                }
                for (duration, leaves) in values {
                    rank -= leaves
                    if rank <= 0 { return duration }
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
        let inner = SQLQuery.where(
            f.conditions(firstDay: "start_day", lastDay: "end_day") + ["clicks >= \(raw: String(ActivityRollup.rageMinimumClicks))"])
        // The partial indexes hold every column read (a table without rowid's index has its key);
        // the actor's and view's texts are found by their numbers.
        var bursts = try read("SELECT \(raw: Self.runTexts), app_key, clicks FROM rollup_click_runs AS r INDEXED BY rollup_bursts\(inner)") {
            r throws(SQLDecodingError) in
            ActivityRollup.Burst(view: try r.decode("view"), appKey: try r.decode("app_key"), actor: try r.decode("actor"), clicks: try r.decode("clicks"))
        }
        /// A run a bound cuts.
        struct CutRun: Hashable {
            var appKey: String, appVersion: String, actor: String, view: String, start: Int64, end: Int64
        }
        var cut = Set<CutRun>()
        for bound in [f.sinceDay, f.untilDay].compactMap({ $0 }) {
            // `start_day <> end_day`: the condition of the small index of runs over midnight.
            let c = SQLQuery.where(f.conditions() + ["start_day <> end_day", "start_day < \(bound)", "end_day >= \(bound)"])
            cut.formUnion(
                try read(
                    "SELECT app_key, app_version, \(raw: Self.runTexts), start_ts, end_ts FROM rollup_click_runs AS r INDEXED BY rollup_runs_over_midnight\(c)"
                ) { r throws(SQLDecodingError) in
                    CutRun(
                        appKey: try r.decode("app_key"), appVersion: try r.decode("app_version"), actor: try r.decode("actor"),
                        view: try r.decode("view"), start: try r.decode("start_ts"), end: try r.decode("end_ts"))
                })
        }
        let from = f.sinceDay.map { $0 * UTCDay.milliseconds } ?? Int64.min
        let to = f.untilDay.map { $0 * UTCDay.milliseconds - 1 } ?? Int64.max
        for r in cut {
            let start = max(r.start, from), end = min(r.end, to)
            guard start <= end else { continue }
            // The run's clicks in range, read through the zone map (`ZonedFilter`).
            let run = try zoned(EventFilter(appKey: r.appKey, since: start, until: end + 1))
            let clicks =
                try readScalar(
                    """
                    SELECT COUNT(*) AS n FROM events\(run.whereClause(
                        "type = 'click'", "COALESCE(app_version, '') = \(r.appVersion)",
                        "\(raw: ActorKind.user.sentIDColumn) = \(r.actor)", "COALESCE(path, name) = \(r.view)"))
                    """, as: Int.self) ?? 0
            if clicks >= ActivityRollup.rageMinimumClicks {
                bursts.append(ActivityRollup.Burst(view: r.view, appKey: r.appKey, actor: r.actor, clicks: clicks))
            }
        }
        return bursts
    }

    /// The texts of a click run's (`r`) actor and view, by their numbers.
    private static let runTexts =
        "(SELECT id FROM rollup_ids WHERE number = r.actor) AS actor, (SELECT view FROM rollup_views WHERE number = r.view) AS view"
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
    func conditions(day: String? = nil, firstDay: String? = nil, lastDay: String? = nil) -> [SQLQuery] {
        var all: [SQLQuery] = []
        if let appKey { all.append("app_key = \(appKey)") }
        if let appVersion { all.append("app_version = \(appVersion)") }
        if let sinceDay, let column = firstDay ?? day { all.append("\(raw: column) >= \(sinceDay)") }
        if let untilDay, let column = lastDay ?? day { all.append("\(raw: column) < \(untilDay)") }
        return all
    }
}
