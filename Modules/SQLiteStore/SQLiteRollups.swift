import EventStore

/// One stored event as the rollup tables see it.
struct RollupEvent: Sendable {
    var seq: Int64
    /// Corrected time, ms since the epoch.
    var time: Int64
    var type: String
    var name: String
    var page: String?
    var path: String?
    /// `props.title` when it is a string.
    var title: String?
    var session: String?
    var user: String?
    var device: String?
    var duration: Int64?
}

/// Keeps the rollup tables (schema migration 5) in step with stored events: `apply` adds events
/// of one app key and version, inside the transaction that stores them (or that replays them,
/// `SQLiteEventStore.catchUpRollups`). Events must come in storage order, each after every
/// event of its app key stored before it.
///
/// What each table holds, and how a report reads it, is in docs/schema.md. Counts per day, dwell
/// values and distinct ids are added up per call first, so a batch costs one statement per
/// distinct key. Page transitions and click runs depend on order, and events may arrive late
/// (an earlier corrected time than events already stored): an enter is put between its
/// neighbours in its page sequence, and a click joins, extends or merges the click runs it
/// touches, so the tables always equal what a scan of the stored events would give.
struct RollupUpdate {
    let db: SQLiteDatabase
    let appKey: String
    /// The app version, none as "" (the key of the tables without rowid).
    let version: String
    let appVersion: SQLiteValue

    init(db: SQLiteDatabase, appKey: String, appVersion: String?) {
        self.db = db
        self.appKey = appKey
        version = appVersion ?? ""
        self.appVersion = appVersion.map(SQLiteValue.text) ?? .null
    }

    func apply(_ events: [RollupEvent]) throws(SQLiteError) {
        guard !events.isEmpty else { return }
        try addCounts(events)
        try addDwell(events)
        try addDistinctIDs(events)
        for e in events where e.type == "page_enter" { try addEnter(e) }
        for e in events where e.type == "click" { try addClick(e) }
        try addViewPages(events)
    }

    // MARK: events per day, type, name, page, path and title

    private struct CountKey: Hashable {
        var day: Int64
        var type: String
        var name: String
        var page: String?
        var path: String?
        var title: String?
    }

    private func addCounts(_ events: [RollupEvent]) throws(SQLiteError) {
        var counts: [CountKey: (events: Int64, dwellCount: Int64, dwellSum: Int64)] = [:]
        for e in events {
            let key = CountKey(day: UTCDay.number(of: e.time), type: e.type, name: e.name, page: e.page, path: e.path, title: e.title)
            counts[key, default: (0, 0, 0)].events += 1
            if e.type == "page_leave", let d = e.duration {
                counts[key]!.dwellCount += 1
                counts[key]!.dwellSum += d
            }
        }
        for (k, v) in counts {
            let key: [SQLiteValue] = [
                .text(appKey), .int(k.day), .text(k.type), .text(k.name), appVersion, k.page.sqlite, k.path.sqlite, k.title.sqlite,
            ]
            // `IS` compares NULL as a value; the key's columns may be NULL, so no UNIQUE/upsert.
            let changed = try db.run(
                """
                UPDATE rollup_events SET events = events + ?, dwell_count = dwell_count + ?, dwell_sum = dwell_sum + ?
                WHERE app_key = ? AND day = ? AND type = ? AND name = ? AND app_version IS ? AND page IS ? AND path IS ? AND title IS ?
                """, [.int(v.events), .int(v.dwellCount), .int(v.dwellSum)] + key)
            if changed == 0 {
                try db.run(
                    """
                    INSERT INTO rollup_events (app_key, day, type, name, app_version, page, path, title, events, dwell_count, dwell_sum)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, key + [.int(v.events), .int(v.dwellCount), .int(v.dwellSum)])
            }
        }
    }

    // MARK: dwell values

    private struct DwellKey: Hashable {
        var day: Int64
        var page: String
        var duration: Int64
    }

    private func addDwell(_ events: [RollupEvent]) throws(SQLiteError) {
        var byDay: [DwellKey: Int64] = [:]
        for e in events where e.type == "page_leave" {
            guard let d = e.duration else { continue }
            byDay[DwellKey(day: UTCDay.number(of: e.time), page: e.page ?? e.name, duration: d), default: 0] += 1
        }
        var total: [DwellKey: Int64] = [:]
        for (k, n) in byDay {
            total[DwellKey(day: 0, page: k.page, duration: k.duration), default: 0] += n
            try db.run(
                """
                INSERT INTO rollup_dwell_days (app_key, day, page, duration, app_version, leaves) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_key, day, page, duration, app_version) DO UPDATE SET leaves = leaves + excluded.leaves
                """, [.text(appKey), .int(k.day), .text(k.page), .int(k.duration), .text(version), .int(n)])
        }
        for (k, n) in total {
            try db.run(
                """
                INSERT INTO rollup_dwell (app_key, page, duration, app_version, leaves) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (app_key, page, duration, app_version) DO UPDATE SET leaves = leaves + excluded.leaves
                """, [.text(appKey), .text(k.page), .int(k.duration), .text(version), .int(n)])
        }
    }

    // MARK: distinct actors, devices and sessions per day

    /// Kinds of distinct ids: `a` actor (user, else device), `d` device, `s` session.
    private struct IDKey: Hashable {
        var allVersions: Bool
        var day: Int64
        var kind: String
        var id: String
    }
    private struct IDCountKey: Hashable {
        var allVersions: Bool
        var day: Int64
        var kind: String
    }

    private func addDistinctIDs(_ events: [RollupEvent]) throws(SQLiteError) {
        var ids = Set<IDKey>()
        for e in events {
            let day = UTCDay.number(of: e.time)
            for (kind, id) in [("a", e.user ?? e.device), ("d", e.device), ("s", e.session)] {
                guard let id else { continue }
                ids.insert(IDKey(allVersions: true, day: day, kind: kind, id: id))
                ids.insert(IDKey(allVersions: false, day: day, kind: kind, id: id))
            }
        }
        var added: [IDCountKey: Int64] = [:]
        for k in ids {
            let changed = try db.run(
                """
                INSERT INTO rollup_actors (app_key, all_versions, app_version, day, kind, id) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [.text(appKey), .int(k.allVersions ? 1 : 0), .text(k.allVersions ? "" : version), .int(k.day), .text(k.kind), .text(k.id)])
            if changed == 1 { added[IDCountKey(allVersions: k.allVersions, day: k.day, kind: k.kind), default: 0] += 1 }
        }
        for (k, n) in added {
            try db.run(
                """
                INSERT INTO rollup_actor_counts (app_key, all_versions, app_version, day, kind, distinct_ids) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_key, all_versions, app_version, day, kind) DO UPDATE SET distinct_ids = distinct_ids + excluded.distinct_ids
                """, [.text(appKey), .int(k.allVersions ? 1 : 0), .text(k.allVersions ? "" : version), .int(k.day), .text(k.kind), .int(n)])
        }
    }

    // MARK: page sequences

    /// Puts the enter `e` into its page sequence: the transition from its predecessor to its
    /// successor (if the pages differ) is replaced by predecessor → e and e → successor.
    private func addEnter(_ e: RollupEvent) throws(SQLiteError) {
        guard let sequence = e.session ?? e.user ?? e.device else { return }
        let page = e.page ?? e.name
        let key: [SQLiteValue] = [.text(appKey), .text(version), .text(sequence)]
        try db.run(
            "INSERT INTO rollup_page_enters (app_key, app_version, sequence, ts, seq, page) VALUES (?, ?, ?, ?, ?, ?)",
            key + [.int(e.time), .int(e.seq), .text(page)])
        func neighbour(_ sql: String) throws(SQLiteError) -> (page: String, time: Int64)? {
            guard let r = try db.query(sql, key + [.int(e.time), .int(e.seq)]).first else { return nil }
            return (r[0].text ?? "", r[1].int ?? 0)
        }
        let before = try neighbour(
            """
            SELECT page, ts FROM rollup_page_enters WHERE app_key = ? AND app_version = ? AND sequence = ? AND (ts, seq) < (?, ?)
            ORDER BY ts DESC, seq DESC LIMIT 1
            """)
        let after = try neighbour(
            """
            SELECT page, ts FROM rollup_page_enters WHERE app_key = ? AND app_version = ? AND sequence = ? AND (ts, seq) > (?, ?)
            ORDER BY ts, seq LIMIT 1
            """)
        let this = (page: page, time: e.time)
        if let b = before, let a = after, b.page != a.page { try addTransition(from: b, to: a, -1) }
        if let b = before, b.page != page { try addTransition(from: b, to: this, 1) }
        if let a = after, page != a.page { try addTransition(from: this, to: a, 1) }
    }

    private func addTransition(from: (page: String, time: Int64), to: (page: String, time: Int64), _ n: Int64) throws(SQLiteError) {
        try db.run(
            """
            INSERT INTO rollup_transitions (app_key, app_version, from_day, to_day, from_page, to_page, transitions)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (app_key, app_version, from_day, to_day, from_page, to_page)
            DO UPDATE SET transitions = transitions + excluded.transitions
            """,
            [
                .text(appKey), .text(version), .int(UTCDay.number(of: from.time)), .int(UTCDay.number(of: to.time)), .text(from.page),
                .text(to.page), .int(n),
            ])
    }

    // MARK: click runs

    private struct Run {
        var start: Int64
        var end: Int64
        var clicks: Int64
    }

    /// Adds the click `e` to the runs of its actor and view: it joins the run it falls in or
    /// follows within the gap (merging it with the next run when the gap closes), or starts
    /// the next run earlier, or is a run of its own.
    private func addClick(_ e: RollupEvent) throws(SQLiteError) {
        guard let actor = e.user ?? e.device else { return }
        let key: [SQLiteValue] = [.text(appKey), .text(version), .text(actor), .text(e.path ?? e.name)]
        let keyed = "app_key = ? AND app_version = ? AND actor = ? AND view = ?"
        func run(_ sql: String) throws(SQLiteError) -> Run? {
            guard let r = try db.query(sql, key + [.int(e.time)]).first else { return nil }
            return Run(start: r[0].int ?? 0, end: r[1].int ?? 0, clicks: r[2].int ?? 0)
        }
        let gap = ActivityRollup.rageGapMilliseconds
        let before = try run(
            "SELECT start_ts, end_ts, clicks FROM rollup_click_runs WHERE \(keyed) AND start_ts <= ? ORDER BY start_ts DESC LIMIT 1")
        let after = try run("SELECT start_ts, end_ts, clicks FROM rollup_click_runs WHERE \(keyed) AND start_ts > ? ORDER BY start_ts LIMIT 1")
        func delete(_ r: Run) throws(SQLiteError) {
            try db.run("DELETE FROM rollup_click_runs WHERE \(keyed) AND start_ts = ?", key + [.int(r.start)])
        }
        func store(_ r: Run) throws(SQLiteError) {
            try db.run(
                """
                INSERT INTO rollup_click_runs (app_key, app_version, actor, view, start_ts, end_ts, clicks, start_day, end_day)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (app_key, app_version, actor, view, start_ts)
                DO UPDATE SET end_ts = excluded.end_ts, clicks = excluded.clicks, end_day = excluded.end_day
                """,
                key + [.int(r.start), .int(r.end), .int(r.clicks), .int(UTCDay.number(of: r.start)), .int(UTCDay.number(of: r.end))])
        }
        if var r = before, e.time - r.end <= gap {
            r.end = max(r.end, e.time)
            r.clicks += 1
            if let next = after, next.start - r.end <= gap {
                try delete(next)
                r.end = max(r.end, next.end)
                r.clicks += next.clicks
            }
            try store(r)
        } else if let next = after, next.start - e.time <= gap {
            try delete(next)
            try store(Run(start: e.time, end: next.end, clicks: next.clicks + 1))
        } else {
            try store(Run(start: e.time, end: e.time, clicks: 1))
        }
    }

    // MARK: the page of each view's first click

    private struct ViewDay: Hashable {
        var day: Int64
        var view: String
    }

    private func addViewPages(_ events: [RollupEvent]) throws(SQLiteError) {
        var first: [ViewDay: (seq: Int64, page: String)] = [:]
        for e in events where e.type == "click" && (e.user ?? e.device) != nil {
            guard let page = e.page else { continue }
            let key = ViewDay(day: UTCDay.number(of: e.time), view: e.path ?? e.name)
            if first[key] == nil { first[key] = (e.seq, page) }
        }
        // Events come in storage order, so a stored row has the smaller `seq`: it stays.
        for (k, v) in first {
            try db.run(
                """
                INSERT INTO rollup_view_pages (app_key, app_version, day, view, first_seq, page) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT DO NOTHING
                """, [.text(appKey), .text(version), .int(k.day), .text(k.view), .int(v.seq), .text(v.page)])
        }
    }
}
