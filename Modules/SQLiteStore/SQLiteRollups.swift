import EventModel
import EventStore
import Foundation
import StoreSQL

/// One stored event as the rollup tables see it. A class: a chunk hands the same events to each
/// table's grouping (by app and version, by type, by sequence …), and copying a value of nine
/// texts costs nine reference counts each time; a reference costs one. Each text comes with its number in the chunk (`RollupTexts`, `ids`): the
/// groupings key on those.
final class RollupEvent: Sendable {
    let seq: Int64
    let appKey: String
    let appVersion: String?
    /// Corrected time, ms since the epoch.
    let time: Int64
    /// The UTC day of `time` (`UTCDay.number`), worked out once for every table.
    let day: Int64
    /// The hour of that day holding `time` (`RollupHours.hour`).
    let hour: Int
    let type: String
    let name: String
    let page: String?
    let path: String?
    /// `props.title` when it is a string.
    let title: String?
    let session: String?
    let user: String?
    let device: String?
    let duration: Int64?
    /// The numbers of its texts in its chunk.
    let ids: IDs

    /// The chunk's numbers of an event's texts (`RollupTexts`); -1 for none.
    struct IDs {
        var appKey: Int32
        var appVersion: Int32
        var type: Int32
        var name: Int32
        var page: Int32
        var path: Int32
        var title: Int32
        var session: Int32
        var user: Int32
        var device: Int32
    }

    /// An event of its texts (each numbered in its chunk's `RollupTexts`).
    init(
        seq: Int64, appKey: RollupText, appVersion: RollupText?, time: Int64, type: RollupText, name: RollupText, page: RollupText?,
        path: RollupText?, title: RollupText?, session: RollupText?, user: RollupText?, device: RollupText?, duration: Int64?
    ) {
        self.seq = seq
        self.time = time
        day = UTCDay.number(of: time)
        hour = RollupHours.hour(of: time, day: day)
        self.duration = duration
        self.appKey = appKey.string
        self.appVersion = appVersion?.string
        self.type = type.string
        self.name = name.string
        self.page = page?.string
        self.path = path?.string
        self.title = title?.string
        self.session = session?.string
        self.user = user?.string
        self.device = device?.string
        ids = IDs(
            appKey: appKey.id, appVersion: appVersion?.id ?? -1, type: type.id, name: name.id, page: page?.id ?? -1, path: path?.id ?? -1,
            title: title?.id ?? -1, session: session?.id ?? -1, user: user?.id ?? -1, device: device?.id ?? -1)
    }

    /// The event of a row of `columns`, read by position (no lookup by name per column); each
    /// text through `texts`, in the order of the columns.
    convenience init(row r: SQLiteStatement, texts: inout RollupTexts) throws(SQLDecodingError) {
        func required(_ i: Int32, _ name: String) throws(SQLDecodingError) -> RollupText {
            guard let t = texts.text(r.bytes(i)) else { throw SQLDecodingError(.typeMismatch, column: name, found: .null) }
            return t
        }
        func integer(_ i: Int32, _ name: String) throws(SQLDecodingError) -> Int64 {
            if r.isNull(i) { throw SQLDecodingError(.typeMismatch, column: name, found: .null) }
            return r.int64(i)
        }
        let seq = try integer(0, "seq")
        let appKey = try required(1, "app_key"), appVersion = texts.text(r.bytes(2))
        let time = try integer(3, "corrected_ts")
        let type = try required(4, "type"), name = try required(5, "name")
        let page = texts.text(r.bytes(6)), path = texts.text(r.bytes(7)), title = texts.text(r.bytes(8))
        let session = texts.text(r.bytes(9)), user = texts.text(r.bytes(10)), device = texts.text(r.bytes(11))
        self.init(
            seq: seq, appKey: appKey, appVersion: appVersion, time: time, type: type, name: name, page: page, path: path, title: title,
            session: session, user: user, device: device, duration: r.isNull(12) ? nil : r.int64(12))
    }

    /// The number of `sentActor` (the user, else the device); -1 for none.
    var sentActorID: Int32 { ids.user >= 0 ? ids.user : ids.device }
    /// The number of its view, `path ?? name`.
    var viewID: Int32 { ids.path >= 0 ? ids.path : ids.name }
    /// The number of its page as the page tables key it, `page ?? name`.
    var pageID: Int32 { ids.page >= 0 ? ids.page : ids.name }
}

extension RollupEvent {
    /// The columns of `events` the rollups of `part` read (`init(row:)`), in this order: the
    /// `kinds` file's tables never read the page, the duration nor the title (which takes
    /// parsing each event's JSON properties), so they come as NULL.
    static func columns(_ part: RollupPart) -> String {
        switch part {
        case .kinds: kindsColumns
        case .pages: pagesColumns
        }
    }
    private static let pagesColumns = """
        seq, app_key, app_version, corrected_ts, type, name, page, path, \(SQLiteEventStore.titleSQL(props: "props")) AS title,
        session, user_id, device_id, duration
        """
    private static let kindsColumns = """
        seq, app_key, app_version, corrected_ts, type, name, NULL AS page, path, NULL AS title, session, user_id, device_id, NULL AS duration
        """

    /// The first `limit` events of `query` (a SELECT of `columns`), each text made once per
    /// distinct value (`RollupTexts`).
    static func read(_ query: SQLQuery, in db: SQLiteDatabase) throws(SQLiteError) -> [RollupEvent] {
        var texts = RollupTexts()
        var rows: [RollupEvent] = []
        try read(query, in: db, texts: &texts, into: &rows)
        return rows
    }

    /// `read`, its texts numbered in `texts` (a chunk's, shared with the events it takes from
    /// memory: `RollupHandoff`) and its events appended to `rows`.
    static func read(_ query: SQLQuery, in db: SQLiteDatabase, texts: inout RollupTexts, into rows: inout [RollupEvent]) throws(SQLiteError) {
        try db.stream(query) { r throws(SQLDecodingError) in
            rows.append(try RollupEvent(row: r, texts: &texts))
            return true
        }
    }
}

/// An app key and version: the rollups of one `RollupUpdate`.
struct SourceKey: Hashable {
    var appKey: String
    var appVersion: String?
}

/// Keeps the rollup tables (schema migration 5) in step with stored events: `apply` adds events
/// of one app key and version, inside the transaction that stores them (or that replays them,
/// `SQLiteEventStore.rebuildRollups`). Events must come in storage order, each after every
/// event of its app key stored before it.
///
/// What each table holds, and how a report reads it, is in docs/schema.md. Counts per day, dwell
/// values and distinct ids are added up per call first, so a batch costs one statement per
/// distinct key. Page transitions and click runs depend on order, and events may arrive late
/// (an earlier corrected time than events already stored): an enter is put between its
/// neighbours in its page sequence, and a click joins, extends or merges the click runs it
/// touches, so the tables always equal what a scan of the stored events would give. Both work
/// per sequence (per actor and view) of the batch, not per event. Gaps and sums of times and
/// durations saturate: a rebuild replays rows stored before they were checked (`EventTime`),
/// which may hold any 64-bit integer.
struct RollupUpdate {
    let db: SQLiteDatabase
    let appKey: String
    /// The app version, none as "" (the key of the tables without rowid).
    let version: String
    let appVersion: SQLValue

    init(db: SQLiteDatabase, appKey: String, appVersion: String?) {
        self.db = db
        self.appKey = appKey
        version = appVersion ?? ""
        self.appVersion = appVersion.map(SQLValue.text) ?? .null
    }

    /// Adds `events` to the rollups of `part` (the tables of its file, `RollupPart`). `memory`
    /// (RollupMemory.swift) says what earlier chunks stored there, and learns what these store:
    /// the caller keeps it only once they are committed.
    func apply(_ events: [RollupEvent], _ part: RollupPart, memory: inout RollupMemory) throws(SQLiteError) {
        guard !events.isEmpty else { return }
        switch part {
        case .kinds:
            // The kind events number the ids in the order of the events; the click runs then
            // find their actors' numbers in `memory`.
            try addKindEvents(events, &memory)
            try addClicks(events, &memory)
        case .pages:
            try addCounts(events)
            try addDwell(events)
            try addDistinctIDs(events, &memory)
            try addEnters(events, &memory)
            try addViewPages(events)
        }
    }
    // MARK: events per day, type, name, page, path and title

    /// A row of `rollup_events` by the chunk's numbers of its texts (`RollupEvent.ids`).
    private struct CountKey: Hashable {
        var day: Int64
        var type: Int32
        var name: Int32
        var page: Int32
        var path: Int32
        var title: Int32
    }

    private func addCounts(_ events: [RollupEvent]) throws(SQLiteError) {
        // Each key's first event gives its texts; its hours are `hours[24 * index ..< 24 * (index + 1)]`.
        var index: [CountKey: Int] = [:]
        var counts: [(first: RollupEvent, events: Int64, dwellCount: Int64, dwellSum: Int64)] = []
        var hours: [Int64] = []
        for e in events {
            let key = CountKey(day: e.day, type: e.ids.type, name: e.ids.name, page: e.ids.page, path: e.ids.path, title: e.ids.title)
            let leave = e.type == "page_leave" ? e.duration : nil
            let i: Int
            if let known = index[key] {
                i = known
            } else {
                i = counts.count
                index[key] = i
                counts.append((e, 0, 0, 0))
                hours += repeatElement(0, count: RollupHours.count)
            }
            counts[i].events += 1
            hours[i * RollupHours.count + e.hour] += 1
            if let d = leave {
                counts[i].dwellCount += 1
                // Saturates: rows stored before durations were checked may hold any integer. Past
                // 64 bits the SQL sum turns to a real (SQLite does so), read with TOTAL.
                counts[i].dwellSum = counts[i].dwellSum.addingSaturating(d)
            }
        }
        for (i, v) in counts.enumerated() {
            let k = v.first
            // `IS` compares NULL as a value; the key's columns may be NULL, so no UNIQUE/upsert.
            var values: [SQLValue] = [
                .int(v.events), .int(v.dwellCount), .int(v.dwellSum), .text(appKey), .int(k.day), .text(k.type), .text(k.name), appVersion,
                k.page.sqlValue, k.path.sqlValue, k.title.sqlValue,
            ]
            values.reserveCapacity(values.count + RollupHours.count)
            for h in 0..<RollupHours.count { values.append(.int(hours[i * RollupHours.count + h])) }
            if try db.run(Self.addToCount, rows: [values]) == 0 { try db.run(Self.insertCount, rows: [values]) }
        }
    }

    // The statements run once per key of a chunk, as text with `?`s bound by position (no
    // `SQLQuery` built per execution: the worker runs hundreds of thousands of them a minute),
    // found in the statement cache by slot (`HotStatement`), not by hashing their text. The
    // hours are `?12` to `?35`.
    private static let addToCount = HotStatement(
        """
        UPDATE rollup_events SET events = events + ?1, dwell_count = dwell_count + ?2, dwell_sum = dwell_sum + ?3,
            \(RollupHours.columns.enumerated().map { "\($1) = \($1) + ?\($0 + 12)" }.joined(separator: ", "))
        WHERE app_key = ?4 AND day = ?5 AND type = ?6 AND name = ?7 AND app_version IS ?8 AND page IS ?9 AND path IS ?10 AND title IS ?11
        """)
    private static let insertCount = HotStatement(
        """
        INSERT INTO rollup_events (events, dwell_count, dwell_sum, app_key, day, type, name, app_version, page, path, title,
            \(RollupHours.columns.joined(separator: ", ")))
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, \(RollupHours.columns.indices.map { "?\($0 + 12)" }.joined(separator: ", ")))
        """)

    // MARK: dwell values

    /// A page's dwell `duration` (or bucket) on `day` (0 in the table without days), the page by
    /// the chunk's number of its text (`RollupEvent.pageID`).
    private struct DwellKey: Hashable {
        var day: Int64
        var page: Int32
        var duration: Int64
    }

    private func addDwell(_ events: [RollupEvent]) throws(SQLiteError) {
        // Each page's text by its number, and its place among the chunk's pages in text order.
        var pages: [Int32: String] = [:]
        var byDay: [DwellKey: Int64] = [:]
        for e in events where e.type == "page_leave" {
            guard let d = e.duration else { continue }
            byDay[DwellKey(day: e.day, page: e.pageID, duration: d), default: 0] += 1
            if pages[e.pageID] == nil { pages[e.pageID] = e.page ?? e.name }
        }
        guard !byDay.isEmpty else { return }
        var dayBuckets: [DwellKey: Int64] = [:]
        var buckets: [DwellKey: Int64] = [:]
        for (k, n) in byDay {
            let bucket = DwellBucket.first(of: k.duration)
            dayBuckets[DwellKey(day: k.day, page: k.page, duration: bucket), default: 0] += n
            buckets[DwellKey(day: 0, page: k.page, duration: bucket), default: 0] += n
        }
        let rank = Dictionary(uniqueKeysWithValues: pages.sorted { $0.value < $1.value }.enumerated().map { ($1.key, Int64($0)) })
        // In each table's key order (`order` of each key, worked out once): neighbouring rows
        // share their pages.
        func upsert(_ statement: HotStatement, _ counts: [DwellKey: Int64], _ order: (DwellKey) -> (Int64, Int64, Int64)) throws(SQLiteError) {
            for (_, k, n) in counts.map({ (order($0.key), $0.key, $0.value) }).sorted(by: { $0.0 < $1.0 }) {
                try db.run(statement) { s throws(SQLiteError) in
                    try s.bind(1, text: pages[k.page])
                    try s.bind(2, int: k.duration)
                    try s.bind(3, int: k.day)
                    try s.bind(4, text: appKey)
                    try s.bind(5, text: version)
                    try s.bind(6, int: n)
                }
            }
        }
        try upsert(Self.addDwellDays, byDay) { (rank[$0.page]!, $0.duration, $0.day) }
        try upsert(Self.addDwellDayBuckets, dayBuckets) { ($0.day, rank[$0.page]!, $0.duration) }
        try upsert(Self.addDwellBuckets, buckets) { (rank[$0.page]!, $0.duration, 0) }
    }

    /// Adds `?6` leaves to a row of a dwell table (`?3`, the day, unused by the table without days).
    private static func addDwell(_ table: String, _ columns: String, days: Bool) -> HotStatement {
        HotStatement(
            """
            INSERT INTO \(table) (\(columns), app_key, app_version, leaves) VALUES (?1, ?2, \(days ? "?3, " : "")?4, ?5, ?6)
            ON CONFLICT (\(columns), app_key, app_version) DO UPDATE SET leaves = leaves + excluded.leaves
            """)
    }
    private static let addDwellDays = addDwell("rollup_dwell_days", "page, duration, day", days: true)
    private static let addDwellDayBuckets = addDwell("rollup_dwell_day_buckets", "page, bucket, day", days: true)
    private static let addDwellBuckets = addDwell("rollup_dwell_buckets", "page, bucket", days: false)

    // MARK: distinct actors, devices and sessions per day

    /// Kinds of distinct ids: `a` actor (user, else device), `d` device, `s` session.
    private static let idKinds = ["a", "d", "s"]
    /// A distinct id of a day: its kind (an index of `idKinds`) and its number in the chunk.
    private struct IDKey: Hashable {
        var day: Int64
        var kind: Int32
        var id: Int32
    }
    private struct IDCountKey: Hashable {
        var allVersions: Bool
        var day: Int64
        var kind: String
    }

    /// Each id new to this app version on its day raises that version's count, and the count of
    /// every version when no other version had it that day (one row per id and version: the
    /// other versions' rows are next to it in the key).
    private func addDistinctIDs(_ events: [RollupEvent], _ memory: inout RollupMemory) throws(SQLiteError) {
        // Each key's text, in order of first appearance.
        var seen = Set<IDKey>()
        var ids: [(day: Int64, kind: String, id: String)] = []
        func see(_ day: Int64, _ kind: Int32, _ n: Int32, _ id: String?) {
            guard let id, seen.insert(IDKey(day: day, kind: kind, id: n)).inserted else { return }
            ids.append((day, Self.idKinds[Int(kind)], id))
        }
        for e in events {
            see(e.day, 0, e.sentActorID, e.sentActor)
            see(e.day, 1, e.ids.device, e.device)
            see(e.day, 2, e.ids.session, e.session)
        }
        var added: [IDCountKey: Int64] = [:]
        // In the table's key order: neighbouring rows share their pages.
        ids.sort { ($0.day, $0.kind, $0.id) < ($1.day, $1.kind, $1.id) }
        for k in ids {
            // Known to be stored: no INSERT (it would change nothing).
            let known = RollupMemory.DistinctID(appKey: appKey, version: version, day: k.day, kind: k.kind, id: k.id)
            if memory.isStored(known) { continue }
            func bindID(_ s: SQLiteStatement) throws(SQLiteError) {
                try s.bind(1, text: appKey)
                try s.bind(2, int: k.day)
                try s.bind(3, text: k.kind)
                try s.bind(4, text: k.id)
            }
            let changed = try db.run(Self.insertActor) { s throws(SQLiteError) in
                try bindID(s)
                try s.bind(5, text: version)
            }
            memory.setStored(known)
            guard changed == 1 else { continue }
            added[IDCountKey(allVersions: false, day: k.day, kind: k.kind), default: 0] += 1
            // The versions of the day are known (each one's counts row, read once a day): when
            // this is the only one, no other version holds the id.
            let appDay = RollupMemory.AppDay(appKey: appKey, day: k.day)
            let knownVersions = memory.versions(appDay)
            var dayVersions = knownVersions ?? []
            if knownVersions == nil {
                try db.stream(Self.versionsOfDay, [.text(appKey), .int(k.day)]) { r throws(SQLDecodingError) in
                    dayVersions.insert(try r.decode("app_version", as: String.self))
                    return true
                }
            }
            if dayVersions.insert(version).inserted || knownVersions == nil { memory.setVersions(appDay, dayVersions) }
            let versions = dayVersions.count == 1 ? 1 : try db.first(Self.countVersions, binding: bindID) { $0.int64(0) }
            if versions == 1 { added[IDCountKey(allVersions: true, day: k.day, kind: k.kind), default: 0] += 1 }
        }
        for (k, n) in added {
            try db.run(
                Self.addActorCount,
                rows: [[.text(appKey), .int(k.allVersions ? 1 : 0), .text(k.allVersions ? "" : version), .int(k.day), .text(k.kind), .int(n)]])
        }
    }

    private static let versionsOfDay = HotStatement(
        "SELECT DISTINCT app_version FROM rollup_actor_counts WHERE app_key = ?1 AND all_versions = 0 AND day = ?2")
    private static let countVersions = HotStatement(
        "SELECT COUNT(*) AS n FROM rollup_actors WHERE app_key = ?1 AND day = ?2 AND kind = ?3 AND id = ?4")
    private static let addActorCount = HotStatement(
        """
        INSERT INTO rollup_actor_counts (app_key, all_versions, app_version, day, kind, distinct_ids) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        ON CONFLICT (app_key, all_versions, app_version, day, kind) DO UPDATE SET distinct_ids = distinct_ids + excluded.distinct_ids
        """)

    private static let insertActor = HotStatement(
        "INSERT INTO rollup_actors (app_key, day, kind, id, app_version) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")

    // MARK: page sequences

    private struct TransitionKey: Hashable {
        var fromDay: Int64
        var toDay: Int64
        var from: String
        var to: String
    }

    /// Puts the batch's enters into their page sequences, one sequence at a time. When they all
    /// come after the sequence's last stored enter (known from `memory`, else read), they follow
    /// it: the transitions from it through them are counted, nothing else is read. Otherwise
    /// (a late enter) the stored stretch they fall into (with the enters just before and after
    /// it) is read, and the transitions of the stretch before and after the new enters joined it
    /// are taken back and counted.
    private func addEnters(_ events: [RollupEvent], _ memory: inout RollupMemory) throws(SQLiteError) {
        // By the chunk's number of the sequence (`session ?? sentActor`).
        let sequences = groupedInOrder(
            events.lazy.filter { $0.type == "page_enter" }.compactMap { e -> (Int32, RollupEvent)? in
                let n = e.ids.session >= 0 ? e.ids.session : e.sentActorID
                return n >= 0 ? (n, e) : nil
            })
        var delta: [TransitionKey: Int64] = [:]
        func count(_ chain: [RollupEnter], _ n: Int64) {
            for (a, b) in zip(chain, chain.dropFirst()) where a.page != b.page {
                delta[
                    TransitionKey(fromDay: UTCDay.number(of: a.time), toDay: UTCDay.number(of: b.time), from: a.page, to: b.page),
                    default: 0] += n
            }
        }
        // In the table's key order: neighbouring sequences share their pages.
        let ordered = sequences.compactMap { group in (group.values[0].session ?? group.values[0].sentActor).map { ($0, group.values) } }
            .sorted { $0.0 < $1.0 }
        for (sequence, entering) in ordered {
            let new = entering.map { RollupEnter(time: $0.time, seq: $0.seq, page: $0.page ?? $0.name) }.sorted()
            let low = new.first!.time, high = new.last!.time
            func enter(_ r: SQLiteStatement) throws(SQLDecodingError) -> RollupEnter {
                RollupEnter(time: try r.decode("ts"), seq: try r.decode("seq"), page: try r.decode("page"))
            }
            let keyed: [SQLValue] = [.text(appKey), .text(version), .text(sequence)]
            let remembered = RollupMemory.SequenceKey(appKey: appKey, version: version, sequence: sequence)
            let last: RollupEnter?
            if let known = memory.lastEnter(remembered) {
                last = known
            } else {
                last = try db.first(
                    Self.lastEnter,
                    binding: { s throws(SQLiteError) in
                        try s.bind(1, text: appKey)
                        try s.bind(2, text: version)
                        try s.bind(3, text: sequence)
                    }, enter)
            }
            defer { memory.setLastEnter(remembered, max(last ?? new.last!, new.last!)) }
            if last.map({ $0 < new.first! }) ?? true {
                count((last.map { [$0] } ?? []) + new, 1)
                try insertEnters(new, sequence: sequence)
                continue
            }
            let before = try db.first(Self.enterBefore, keyed + [.int(low)], enter)
            // The stored enters from `low` on, up to and including the first after `high`.
            var stretch: [RollupEnter] = []
            try db.stream(Self.entersFrom, keyed + [.int(low)]) {
                r throws(SQLDecodingError) in
                stretch.append(try enter(r))
                return stretch.last!.time <= high
            }
            let old = (before.map { [$0] } ?? []) + stretch
            count(old, -1)
            count(old.isEmpty ? new : (old + new).sorted(), 1)
            try insertEnters(new, sequence: sequence)
        }
        for (k, n) in delta where n != 0 {
            try db.run(
                Self.addTransitions, rows: [[.text(appKey), .text(version), .int(k.fromDay), .int(k.toDay), .text(k.from), .text(k.to), .int(n)]])
        }
    }

    private static let sequenceKey = "app_key = ?1 AND app_version = ?2 AND sequence = ?3"
    private static let lastEnter = HotStatement(
        "SELECT ts, seq, page FROM rollup_page_enters WHERE \(sequenceKey) ORDER BY ts DESC, seq DESC LIMIT 1")
    private static let enterBefore = HotStatement(
        "SELECT ts, seq, page FROM rollup_page_enters WHERE \(sequenceKey) AND ts < ?4 ORDER BY ts DESC, seq DESC LIMIT 1")
    private static let entersFrom = HotStatement(
        "SELECT ts, seq, page FROM rollup_page_enters WHERE \(sequenceKey) AND ts >= ?4 ORDER BY ts, seq")
    private static let addTransitions = HotStatement(
        """
        INSERT INTO rollup_transitions (app_key, app_version, from_day, to_day, from_page, to_page, transitions)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
        ON CONFLICT (app_key, app_version, from_day, to_day, from_page, to_page) DO UPDATE SET transitions = transitions + excluded.transitions
        """)

    private func insertEnters(_ enters: [RollupEnter], sequence: String) throws(SQLiteError) {
        for e in enters {
            try db.run(Self.insertEnter) { s throws(SQLiteError) in
                try s.bind(1, text: appKey)
                try s.bind(2, text: version)
                try s.bind(3, text: sequence)
                try s.bind(4, int: e.time)
                try s.bind(5, int: e.seq)
                try s.bind(6, text: e.page)
            }
        }
    }

    private static let insertEnter = HotStatement(
        "INSERT INTO rollup_page_enters (app_key, app_version, sequence, ts, seq, page) VALUES (?, ?, ?, ?, ?, ?)")

    // MARK: click runs

    /// An actor and view by the chunk's numbers of their texts.
    private struct ClickKey: Hashable {
        var actor: Int32
        var view: Int32
    }

    /// Adds the batch's clicks to the runs of their actor and view, one actor and view at a
    /// time: the stored runs within the gap of the new clicks' span are read, merged with the
    /// clicks (runs and clicks sorted by start, each joining the one before when it starts at
    /// most the gap after its end), and the runs that changed are replaced. When the clicks all
    /// come at or after the start of the last stored run (known from `memory`, else read), that
    /// run is the only one that can join: nothing else is read.
    private func addClicks(_ events: [RollupEvent], _ memory: inout RollupMemory) throws(SQLiteError) {
        let byKey = groupedInOrder(
            events.lazy.filter { $0.type == "click" && $0.sentActorID >= 0 }.map { e in (ClickKey(actor: e.sentActorID, view: e.viewID), e) })
        let gap = ActivityRollup.rageGapMilliseconds
        // Numbered in the order of the events; then worked in the table's key order, where
        // neighbouring actors and views share their pages.
        var numbered: [(actor: Int64, view: Int64, clicks: [RollupEvent])] = []
        numbered.reserveCapacity(byKey.count)
        for (_, clicks) in byKey {
            guard let actorText = clicks[0].sentActor else { continue }
            let viewText = clicks[0].path ?? clicks[0].name
            let actorKey = RollupMemory.AppText(appKey: appKey, text: actorText)
            let actor = try number(memory.idNumber(actorKey), Self.ids, appKey, actorText) { memory.setIDNumber(actorKey, $0) }
            let viewKey = RollupMemory.AppText(appKey: appKey, text: viewText)
            let view = try number(memory.viewNumber(viewKey), Self.views, appKey, viewText) { memory.setViewNumber(viewKey, $0) }
            numbered.append((actor, view, clicks))
        }
        numbered.sort { ($0.actor, $0.view) < ($1.actor, $1.view) }
        for (actor, view, clicks) in numbered {
            let times = clicks.map(\.time).sorted()
            func run(_ r: SQLiteStatement) throws(SQLDecodingError) -> ClickRun {
                ClickRun(start: try r.decode("start_ts"), end: try r.decode("end_ts"), clicks: try r.decode("clicks"))
            }
            let runKey: [SQLValue] = [.text(appKey), .text(version), .int(actor), .int(view)]
            func bindRunKey(_ s: SQLiteStatement) throws(SQLiteError) {
                try s.bind(1, text: appKey)
                try s.bind(2, text: version)
                try s.bind(3, int: actor)
                try s.bind(4, int: view)
            }
            let remembered = RollupMemory.RunKey(appKey: appKey, version: version, actor: actor, view: view)
            let last: ClickRun?
            if let known = memory.lastRun(remembered) {
                last = known
            } else {
                last = try db.first(Self.lastRun, binding: bindRunKey, run)
            }
            // Runs are apart by more than the gap, so only the last one starting at or before
            // the first click, and those starting up to the gap after the last, can join.
            var stored: [ClickRun]
            if last.map({ $0.start <= times.first! }) ?? true {
                stored = last.map { [$0] } ?? []
            } else {
                stored = try db.first(Self.runAtOrBefore, runKey + [.int(times.first!)], run).map { [$0] } ?? []
                stored += try db.query(Self.runsWithin, runKey + [.int(times.first!), .int(times.last!.addingSaturating(gap))], run)
            }
            stored = stored.filter { $0.start > times.first! || times.first!.subtractingSaturating($0.end) <= gap }
            var merged: [ClickRun] = []
            for r in (stored + times.map { ClickRun(start: $0, end: $0, clicks: 1) }).sorted(by: { $0.start < $1.start }) {
                if let last = merged.last, r.start.subtractingSaturating(last.end) <= gap {
                    merged[merged.count - 1].end = max(last.end, r.end)
                    merged[merged.count - 1].clicks += r.clicks
                } else {
                    merged.append(r)
                }
            }
            // The run that starts last afterwards: the last of the merged ones, unless the last
            // stored run took no part (it starts more than the gap after every click).
            let untouched = last.flatMap { l in stored.contains(l) ? nil : l }
            memory.setLastRun(remembered, ([untouched].compactMap { $0 } + merged).max { $0.start < $1.start }!)
            // A stored run that changed is updated when it keeps its start (clicks after it),
            // else deleted; the merged runs not stored yet are inserted.
            let kept = Set(stored).intersection(merged)
            var updated = Set<Int64>()
            for r in stored where !kept.contains(r) {
                let values: [SQLValue] = [.text(appKey), .text(version), .int(actor), .int(view), .int(r.start)]
                if let m = merged.first(where: { $0.start == r.start }) {
                    try db.run(Self.updateRun, rows: [values, [.int(m.end), .int(m.clicks), .int(UTCDay.number(of: m.end))]])
                    updated.insert(m.start)
                } else {
                    try db.run(Self.deleteRun, rows: [values])
                }
            }
            for r in merged where !kept.contains(r) && !updated.contains(r.start) {
                try db.run(Self.insertRun) { s throws(SQLiteError) in
                    try bindRunKey(s)
                    try s.bind(5, int: r.start)
                    try s.bind(6, int: r.end)
                    try s.bind(7, int: r.clicks)
                    try s.bind(8, int: UTCDay.number(of: r.start))
                    try s.bind(9, int: UTCDay.number(of: r.end))
                }
            }
        }
    }

    private static let actorView = "app_key = ?1 AND app_version = ?2 AND actor = ?3 AND view = ?4"
    private static let runColumns = "SELECT start_ts, end_ts, clicks FROM rollup_click_runs"
    private static let lastRun = HotStatement("\(runColumns) WHERE \(actorView) ORDER BY start_ts DESC LIMIT 1")
    private static let runAtOrBefore = HotStatement("\(runColumns) WHERE \(actorView) AND start_ts <= ?5 ORDER BY start_ts DESC LIMIT 1")
    private static let runsWithin = HotStatement("\(runColumns) WHERE \(actorView) AND start_ts > ?5 AND start_ts <= ?6 ORDER BY start_ts")
    private static let runKey = "\(actorView) AND start_ts = ?5"
    private static let updateRun = HotStatement("UPDATE rollup_click_runs SET end_ts = ?6, clicks = ?7, end_day = ?8 WHERE \(runKey)")
    private static let deleteRun = HotStatement("DELETE FROM rollup_click_runs WHERE \(runKey)")
    private static let insertRun = HotStatement(
        """
        INSERT INTO rollup_click_runs (app_key, app_version, actor, view, start_ts, end_ts, clicks, start_day, end_day)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """)

    // MARK: funnels' and retention tables' rows

    /// Each event in `rollup_kind_events` (KindEventBlocks.swift), in its kind's blocks: its
    /// time, seq, app key and version, and its actor, device and session as numbers
    /// (`rollup_kinds`, `rollup_sources`, `rollup_ids`: each text numbered once, the first time
    /// it is stored). A funnel step or a retention event then reads one range of blocks in time
    /// order.
    private func addKindEvents(_ events: [RollupEvent], _ memory: inout RollupMemory) throws(SQLiteError) {
        let sourceKey = SourceKey(appKey: appKey, appVersion: version)
        let source = try number(memory.sourceNumber(sourceKey), Self.sources, appKey, version) { memory.setSourceNumber(sourceKey, $0) }
        // This call's numbers, by the chunk's numbers of the texts (`RollupEvent.ids`): the memory
        // (keyed by texts) is asked once per distinct text or kind, not per event.
        var idNumbers: [Int64] = []
        var kindNumbers: [Int64: Int64] = [:]
        /// The number of id `id` (its number in the chunk `n`); 0 for none (numbers start at 1).
        func idNumber(_ id: String?, _ n: Int32) throws(SQLiteError) -> Int64 {
            guard let id else { return 0 }
            let i = Int(n)
            if i < idNumbers.count, idNumbers[i] > 0 { return idNumbers[i] }
            let key = RollupMemory.AppText(appKey: appKey, text: id)
            let found = try number(memory.idNumber(key), Self.ids, appKey, id) { memory.setIDNumber(key, $0) }
            if i >= idNumbers.count { idNumbers += repeatElement(0, count: i + 1 - idNumbers.count) }
            idNumbers[i] = found
            return found
        }
        var byKind: [Int64: [KindEventEntry]] = [:]
        for e in events {
            let kindKey = Int64(e.ids.type) << 32 | Int64(e.ids.name)
            let kind: Int64
            if let n = kindNumbers[kindKey] {
                kind = n
            } else {
                let k = EventKind(type: e.type, name: e.name)
                kind = try number(memory.kindNumber(k), Self.kinds, e.type, e.name) { memory.setKindNumber(k, $0) }
                kindNumbers[kindKey] = kind
            }
            let entry = KindEventEntry(
                time: e.time, seq: e.seq, source: source, actor: try idNumber(e.sentActor, e.sentActorID),
                device: try idNumber(e.device, e.ids.device), session: try idNumber(e.session, e.ids.session))
            byKind[kind, default: []].append(entry)
        }
        // In kind order: the same order of writes whatever the dictionary's.
        for kind in byKind.keys.sorted() { try KindEventBlocks.add(byKind[kind]!, kind: kind, in: db) }
    }

    /// `known` (what the memory says), else the number of the row of `table` keyed by `a` and
    /// `b` (its two key columns, the row added when new), given to `remember`.
    private func number(_ known: Int64?, _ table: NumberedTable, _ a: String, _ b: String, remember: (Int64) -> Void) throws(SQLiteError) -> Int64 {
        if let known { return known }
        let n: Int64
        func bindKey(_ s: SQLiteStatement) throws(SQLiteError) {
            try s.bind(1, text: a)
            try s.bind(2, text: b)
        }
        if let stored = try db.first(table.select, binding: bindKey, { $0.int64(0) }) {
            n = stored
        } else {
            try db.run(table.insert, binding: bindKey)
            n = db.lastInsertedRowID
        }
        remember(n)
        return n
    }

    /// A table numbering the pairs of its two key columns (`rollup_sources`, `rollup_ids`,
    /// `rollup_views`, `rollup_kinds`): its statements.
    private struct NumberedTable {
        let select: HotStatement
        let insert: HotStatement

        init(_ table: String, _ first: String, _ second: String) {
            select = HotStatement("SELECT number FROM \(table) WHERE \(first) = ?1 AND \(second) = ?2")
            insert = HotStatement("INSERT INTO \(table) (\(first), \(second)) VALUES (?1, ?2)")
        }
    }
    private static let sources = NumberedTable("rollup_sources", "app_key", "app_version")
    private static let ids = NumberedTable("rollup_ids", "app_key", "id")
    private static let views = NumberedTable("rollup_views", "app_key", "view")
    private static let kinds = NumberedTable("rollup_kinds", "type", "name")

    // MARK: the page of each view's first click

    /// A view (the chunk's number of its text) on a day.
    private struct ViewDay: Hashable {
        var day: Int64
        var view: Int32
    }

    private func addViewPages(_ events: [RollupEvent]) throws(SQLiteError) {
        var first: [ViewDay: RollupEvent] = [:]
        for e in events where e.type == "click" && e.sentActorID >= 0 && e.page != nil {
            let key = ViewDay(day: e.day, view: e.viewID)
            if first[key] == nil { first[key] = e }
        }
        // Events come in storage order, so a stored row has the smaller `seq`: it stays.
        for e in first.values {
            try db.run(
                Self.insertViewPage, rows: [[.text(appKey), .text(version), .int(e.day), .text(e.path ?? e.name), .int(e.seq), e.page.sqlValue]])
        }
    }

    private static let insertViewPage = HotStatement(
        "INSERT INTO rollup_view_pages (app_key, app_version, day, view, first_seq, page) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
}

/// One page enter in its sequence: ordered by time, ties by storage order.
struct RollupEnter: Comparable, Sendable {
    var time: Int64
    var seq: Int64
    var page: String

    static func < (a: RollupEnter, b: RollupEnter) -> Bool { (a.time, a.seq) < (b.time, b.seq) }
    static func == (a: RollupEnter, b: RollupEnter) -> Bool { (a.time, a.seq) == (b.time, b.seq) }
}

/// A run of clicks: every click of one actor on one view from `start` to `end`, each at most the
/// gap after the one before; a new click is a run of one.
struct ClickRun: Hashable, Sendable {
    var start: Int64
    var end: Int64
    var clicks: Int64
}

/// Dwell durations in buckets, so a percentile reads a few hundred bucket rows and then the
/// exact values of one bucket: below 64 ms each value is its own bucket; above, a bucket is
/// 1/32 of its power of two (64–65, …, 1024–1055, …), at most 3% of its values wide.
enum DwellBucket {
    /// The first duration of the bucket holding `duration`.
    static func first(of duration: Int64) -> Int64 {
        guard duration >= 64 else { return duration }
        let shift = Int64(64 - duration.leadingZeroBitCount - 6)
        return (duration >> shift) << shift
    }

    /// The last duration of the bucket that starts at `first`.
    static func last(ofBucket first: Int64) -> Int64 {
        guard first >= 64 else { return first }
        // Width − 1 first: the top bucket's last value is Int64.max itself.
        return first + ((1 << Int64(64 - first.leadingZeroBitCount - 6)) - 1)
    }
}

/// `pairs`' values grouped by key, the keys in order of first appearance and each group's
/// values in their order.
func groupedInOrder<Key: Hashable, Value>(_ pairs: some Sequence<(Key, Value)>) -> [(key: Key, values: [Value])] {
    var groups: [(key: Key, values: [Value])] = []
    var index: [Key: Int] = [:]
    for (key, value) in pairs {
        if let i = index[key] {
            groups[i].values.append(value)
        } else {
            index[key] = groups.count
            groups.append((key, [value]))
        }
    }
    return groups
}
