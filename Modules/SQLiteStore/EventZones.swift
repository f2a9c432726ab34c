import EventStore
import StoreSQL

/// The time zone map of `events` (migration 11): for each run of commits of one app, a row
/// `(app_key, first_seq, last_seq, min_ts, max_ts)` saying that every event of that app stored
/// with a `seq` in `[first_seq, last_seq]` has its `corrected_ts` in `[min_ts, max_ts]` (a
/// min-max index, as PostgreSQL's BRIN or Parquet's row-group statistics). A commit extends its
/// app's latest row while the two stay within a quarter hour and 65,536 `seq`s, so traffic in
/// time order adds a row per quarter hour and app, however many small batches it comes in.
///
/// It stands in for an index on `(app_key, corrected_ts)`, which every INSERT would write at a
/// random place. A query bounded in
/// time reads the map (a row per quarter hour and app, and one per commit with a late event),
/// and then only the `seq` ranges whose times meet its range: rowid ranges, which SQLite steps
/// without a scan. Traffic arrives close to its
/// time, so a commit's range is tight; a late event widens its commit's range (still right:
/// that commit's rows are then read by more queries, and filtered by their exact time).
///
/// The map may claim more than is there (a range's rows pruned, or duplicates not stored): it is
/// read as "no event of the app outside these ranges", never as "these ranges hold events".
enum EventZones {
    /// Rows of `seq` per zone when migration 11 maps the rows stored before it.
    static let migrationBlock = 1024

    /// Migration 11: the map, built for the stored rows (per app and block of `migrationBlock`
    /// seqs), and the index it replaces dropped. A commit extends or appends rows at the end; a
    /// lookup reads, through `event_zones_end` (one entry per zone, not per event), only the
    /// zones that end at or after its `since`: a query of the last hours reads the last zones,
    /// however long the map has grown.
    static let migration = """
        CREATE TABLE event_zones (
            app_key     TEXT    NOT NULL,
            first_seq   INTEGER NOT NULL,
            last_seq    INTEGER NOT NULL,
            min_ts      INTEGER NOT NULL,
            max_ts      INTEGER NOT NULL
        );
        CREATE INDEX event_zones_end ON event_zones (max_ts);
        INSERT INTO event_zones (app_key, first_seq, last_seq, min_ts, max_ts)
            SELECT app_key, MIN(seq), MAX(seq), MIN(corrected_ts), MAX(corrected_ts) FROM events
            GROUP BY seq / \(migrationBlock), app_key ORDER BY MIN(seq);
        DROP INDEX IF EXISTS events_corrected_ts;
        """

    /// One app's rows of a commit: their seqs and the range of their corrected times.
    struct Zone: Sendable, Equatable {
        var appKey: String
        var seqs: ClosedRange<Int64>
        var times: ClosedRange<Int64>

        /// This zone widened to hold `other`'s rows too (same app).
        func merged(_ other: Zone) -> Zone {
            Zone(
                appKey: appKey, seqs: min(seqs.lowerBound, other.seqs.lowerBound)...max(seqs.upperBound, other.seqs.upperBound),
                times: min(times.lowerBound, other.times.lowerBound)...max(times.upperBound, other.times.upperBound))
        }
    }

    /// The zones of a committing group, one per app, in the order the apps first came.
    struct Recorder {
        private var zones: [Zone] = []

        mutating func add(_ zone: Zone) {
            if let i = zones.firstIndex(where: { $0.appKey == zone.appKey }) {
                zones[i] = zones[i].merged(zone)
            } else {
                zones.append(zone)
            }
        }

        /// Writes the group's zones inside its transaction: each extends its app's latest zone
        /// when the two together stay within `StoreTuning.zoneMaxSpan` and `StoreTuning.zoneMaxSeqs` (traffic that
        /// arrives in time order: one row per quarter hour or so, not one per commit), else it
        /// is a row of its own.
        func write(to db: SQLiteDatabase) throws(SQLiteError) {
            for z in zones {
                let latest = try db.query(Self.latest(z.appKey)) { r throws(SQLDecodingError) in
                    (
                        rowID: try r.decode("rowid", as: Int64.self),
                        zone: Zone(
                            appKey: z.appKey, seqs: try r.decode("first_seq", as: Int64.self)...(try r.decode("last_seq", as: Int64.self)),
                            times: try r.decode("min_ts", as: Int64.self)...(try r.decode("max_ts", as: Int64.self)))
                    )
                }.first
                if let latest, let extended = EventZones.extended(latest.zone, by: z) {
                    try db.run(
                        Self.extend,
                        rows: [[.int(extended.seqs.upperBound), .int(extended.times.lowerBound), .int(extended.times.upperBound), .int(latest.rowID)]])
                } else {
                    try db.run(Self.insert, rows: [[.text(z.appKey), .int(z.seqs.lowerBound), .int(z.seqs.upperBound), .int(z.times.lowerBound), .int(z.times.upperBound)]])
                }
            }
        }

        private static let insert = HotStatement(
            "INSERT INTO event_zones (app_key, first_seq, last_seq, min_ts, max_ts) VALUES (?, ?, ?, ?, ?)")
        /// The app's latest zone among the map's last `StoreTuning.zoneLatestRows` rows (a rowid range at the
        /// map's end: no index read, however long the map; an app quiet for longer starts anew).
        static func latest(_ appKey: String) -> SQLQuery {
            """
            SELECT rowid, first_seq, last_seq, min_ts, max_ts FROM event_zones
            WHERE rowid > (SELECT IFNULL(MAX(rowid), 0) FROM event_zones) - \(StoreTuning.zoneLatestRows) AND app_key = \(appKey)
            ORDER BY rowid DESC LIMIT 1
            """
        }
        private static let extend = HotStatement("UPDATE event_zones SET last_seq = ?, min_ts = ?, max_ts = ? WHERE rowid = ?")
    }

    /// `latest` (an app's latest zone) grown to hold `next` (the same app's rows of a later
    /// commit), or nil when that would take it past `StoreTuning.zoneMaxSpan` or
    /// `StoreTuning.zoneMaxSeqs`. A zone
    /// already wider (a commit with a late event) takes nothing in.
    static func extended(_ latest: Zone, by next: Zone) -> Zone? {
        guard next.seqs.lowerBound > latest.seqs.upperBound else { return nil }
        let grown = latest.merged(next)
        guard grown.times.upperBound - grown.times.lowerBound <= StoreTuning.zoneMaxSpan,
            grown.seqs.upperBound - grown.seqs.lowerBound < StoreTuning.zoneMaxSeqs
        else { return nil }
        return grown
    }

    /// The seq ranges that hold every event of `appKey` (every app: nil) whose corrected time is
    /// in `[since, until)` (an open side: nil), from the map; sorted and apart. Empty: none.
    static func seqRanges(appKey: String?, since: Int64?, until: Int64?, in db: SQLiteDatabase) throws(SQLiteError) -> [ClosedRange<Int64>] {
        var conditions: [SQLQuery] = []
        if let appKey { conditions.append("app_key = \(appKey)") }
        if let since { conditions.append("max_ts >= \(since)") }
        if let until { conditions.append("min_ts < \(until)") }
        let found = try db.query("SELECT first_seq, last_seq FROM event_zones\(SQLQuery.where(conditions))") { r throws(SQLDecodingError) in
            (try r.decode("first_seq", as: Int64.self))...(try r.decode("last_seq", as: Int64.self))
        }
        return merged(found)
    }

    /// `ranges` sorted, overlapping ones and those `StoreTuning.zoneMergedGap` apart joined, then, while more
    /// than `StoreTuning.zoneMaxRanges`, those closest joined.
    static func merged(_ ranges: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var gap = StoreTuning.zoneMergedGap
        while true {
            var out: [ClosedRange<Int64>] = []
            for r in sorted {
                if let last = out.last, r.lowerBound <= last.upperBound || r.lowerBound - last.upperBound <= gap {
                    out[out.count - 1] = last.lowerBound...max(last.upperBound, r.upperBound)
                } else {
                    out.append(r)
                }
            }
            if out.count <= StoreTuning.zoneMaxRanges { return out }
            gap = gap > Int64.max / 4 ? Int64.max : gap * 4
        }
    }

    /// Keeps the map right after a prune deleted the events of `appKey` (every app: nil) before
    /// `before`: zones left without an event of their app go, and the zones the cut went through
    /// shrink to the seqs and earliest time left. (Until then the map only claims too much.)
    static func pruned(before: Int64, appKey: String?, in db: SQLiteDatabase) throws(SQLiteError) {
        let app: SQLQuery = appKey.map { " AND app_key = \($0)" } ?? ""
        // `+`: the rowid range leads, not the dedup index.
        let rows = "FROM events AS e WHERE e.seq BETWEEN event_zones.first_seq AND event_zones.last_seq AND +e.app_key = event_zones.app_key"
        try db.run("DELETE FROM event_zones WHERE max_ts < \(before)\(app)")
        try db.run("DELETE FROM event_zones WHERE min_ts < \(before)\(app) AND NOT EXISTS (SELECT 1 \(raw: rows))")
        try db.run(
            """
            UPDATE event_zones SET (first_seq, last_seq, min_ts) = (SELECT MIN(e.seq), MAX(e.seq), MIN(e.corrected_ts) \(raw: rows))
            WHERE min_ts < \(before)\(app)
            """)
    }

    /// The condition that `seq` (of `table`, or unqualified) is in one of `ranges`.
    static func condition(_ ranges: [ClosedRange<Int64>], table: String = "") -> SQLQuery {
        let seq = table.isEmpty ? "seq" : table + ".seq"
        guard !ranges.isEmpty else { return "0" }
        let each = ranges.map { r -> SQLQuery in "\(raw: seq) BETWEEN \(r.lowerBound) AND \(r.upperBound)" }
        return each.count == 1 ? each[0] : "(" + .joined(each, separator: " OR ") + ")"
    }
}

/// An `EventFilter` as conditions on SQLite's `events`: the filter's own (`EventFilter.conditions`)
/// and, when it bounds the time, the seq ranges the zone map gives for it (`EventZones`), so the
/// rows are read by rowid ranges, not by a scan.
struct ZonedFilter: Sendable {
    var filter: EventFilter
    /// The ranges holding every event the filter selects; nil when it has no time bound.
    var seqs: [ClosedRange<Int64>]?

    init(_ filter: EventFilter, _ db: SQLiteDatabase) throws(SQLiteError) {
        self.filter = filter
        seqs =
            filter.since == nil && filter.until == nil
            ? nil : try EventZones.seqRanges(appKey: filter.appKey, since: filter.since, until: filter.until, in: db)
    }

    /// The app and version (the app key with `+`, as without a time range: the seq ranges lead,
    /// not the dedup index), the exact time range, then the seq ranges.
    func conditions(table: String = "") -> [SQLQuery] {
        EventFilter(appKey: filter.appKey, appVersion: filter.appVersion).conditions(table: table, timed: false, dialect: .sqlite)
            + EventFilter(since: filter.since, until: filter.until).conditions(table: table, dialect: .sqlite)
            + (seqs.map { [EventZones.condition($0, table: table)] } ?? [])
    }

    /// ` WHERE …` over the conditions and `extra` after them, or nothing.
    func whereClause(table: String = "", _ extra: SQLQuery...) -> SQLQuery {
        .where(conditions(table: table) + extra)
    }
}

extension SQLiteEventStore {
    /// `filter` with its seq ranges read from the map on the store's connection.
    func zoned(_ filter: EventFilter) throws(StoreError) -> ZonedFilter {
        try locked { db throws(SQLiteError) in try ZonedFilter(filter, db) }
    }
}
