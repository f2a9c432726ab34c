import EventStore
import Foundation
import StoreSQL
import SystemCalls

/// The rollup tables live in two files of their own beside the database, each attached to every
/// connection under its own schema name (`RollupPart`), so an unqualified `rollup_*` name means
/// its table there (every table name is spelt once across the two files).
///
/// Why files of their own: SQLite has one write lock per file. With the rollups in the events'
/// file, the rollup worker's transactions and the appends took turns: an append waited for a
/// chunk, and the worker could not use the processor while an append waited for its fsync. Each
/// file has its own lock, so the workers apply rollups while appends commit. Two files: two
/// workers, each writing its own file under its own lock, apply at once on two processors.
///
/// The rollups are derived from the events, so their files are written with
/// `synchronous = NORMAL` (no fsync per transaction). Each file keeps its own watermark (and
/// rebuild backlog) with its tables: after a crash each holds its rollups exactly up to its own
/// watermark, and its worker applies the events after it again, whatever the other file holds.
/// A missing file is created empty (watermark 0) and filled from every stored event; a watermark
/// past the last stored event (events lost with a file written at `synchronous = NORMAL`)
/// empties its file the same way (`RollupFile.check`).
enum RollupFile {
    /// The files beside a database that belong to its rollups files (`serve` overwriting a
    /// database removes them too).
    static let suffixes = RollupPart.allCases.flatMap { part in ["", "-wal", "-shm", "-journal"].map { part.suffix + $0 } }

    /// The tables the single rollups file held before the split (schema 10), in the order
    /// migration 10 moves them there from the events' file.
    static let tables =
        Schema.rollupTables + ["rollup_kinds", "rollup_sources", "rollup_ids", "rollup_kind_events", "rollup_backlog", "rollup_watermark"]

    /// The layout of the tables this build keeps in its rollups files, recorded in each file's
    /// `PRAGMA user_version`. The files are derived from the events, so changing their tables
    /// takes no migration: bump this, and a file at another layout is emptied, made anew and
    /// refilled from every stored event (`check`; a read-only reader reads the events meanwhile).
    /// A file made before layouts were recorded reads 0, which is layout 1. This layout: the
    /// tables shared out to two files (`RollupPart`), `rollup_kind_events` in blocks of events
    /// (KindEventBlocks.swift), the click runs keyed by the numbers of their actor
    /// (`rollup_ids`) and view (`rollup_views`), and `rollup_events` with its events per hour
    /// (`RollupHours`) (docs/schema.md).
    static let layout: Int64 = 5

    /// The layout of a file whose `user_version` reads `recorded`.
    static func layout(recorded: Int64) -> Int64 { recorded == 0 ? 1 : recorded }

    /// Layout 1: the tables of the single rollups file as migrations 5 and 8 left them in the
    /// events' file (docs/schema.md), created when absent. Never edited, as a migration is not:
    /// a database below schema 10 attaches a new `PATH-rollups` of this layout for migration 10
    /// to move its tables into, and `check` then brings both files to `layout`.
    static let firstLayout = """
        CREATE TABLE IF NOT EXISTS rollups.rollup_events (
            app_key     TEXT    NOT NULL,
            app_version TEXT,
            day         INTEGER NOT NULL,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            page        TEXT,
            path        TEXT,
            title       TEXT,
            events      INTEGER NOT NULL,
            dwell_count INTEGER NOT NULL,
            dwell_sum   INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS rollups.rollup_events_key ON rollup_events (app_key, day, type, name);
        CREATE TABLE IF NOT EXISTS rollups.rollup_actors (
            app_key     TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            PRIMARY KEY (app_key, day, kind, id, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_actor_counts (
            app_key     TEXT    NOT NULL,
            all_versions INTEGER NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            distinct_ids INTEGER NOT NULL,
            PRIMARY KEY (app_key, all_versions, app_version, day, kind)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_dwell_buckets (
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, bucket, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_dwell_days (
            page        TEXT    NOT NULL,
            duration    INTEGER NOT NULL,
            day         INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, duration, day, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_dwell_day_buckets (
            day         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (day, page, bucket, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_page_enters (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            sequence    TEXT    NOT NULL,
            ts          INTEGER NOT NULL,
            seq         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, sequence, ts, seq)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_transitions (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            from_day    INTEGER NOT NULL,
            to_day      INTEGER NOT NULL,
            from_page   TEXT    NOT NULL,
            to_page     TEXT    NOT NULL,
            transitions INTEGER NOT NULL,
            PRIMARY KEY (app_key, app_version, from_day, to_day, from_page, to_page)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_click_runs (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            actor       TEXT    NOT NULL,
            view        TEXT    NOT NULL,
            start_ts    INTEGER NOT NULL,
            end_ts      INTEGER NOT NULL,
            clicks      INTEGER NOT NULL,
            start_day   INTEGER NOT NULL,
            end_day     INTEGER NOT NULL,
            PRIMARY KEY (app_key, app_version, actor, view, start_ts)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS rollups.rollup_bursts ON rollup_click_runs (app_key, start_day, end_day, clicks) WHERE clicks >= 3;
        CREATE INDEX IF NOT EXISTS rollups.rollup_runs_over_midnight ON rollup_click_runs (app_key, start_day, end_day, end_ts)
            WHERE start_day <> end_day;
        CREATE TABLE IF NOT EXISTS rollups.rollup_view_pages (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            view        TEXT    NOT NULL,
            first_seq   INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, day, view)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_kinds (
            number      INTEGER PRIMARY KEY,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            UNIQUE (type, name)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_sources (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            UNIQUE (app_key, app_version)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_ids (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            UNIQUE (app_key, id)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_kind_events (
            kind        INTEGER NOT NULL,
            ts          INTEGER NOT NULL,
            seq         INTEGER NOT NULL,
            source      INTEGER NOT NULL,
            actor       INTEGER,
            device      INTEGER,
            session     INTEGER,
            PRIMARY KEY (kind, ts, seq)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_backlog (
            app_key     TEXT    NOT NULL PRIMARY KEY,
            next_seq    INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_watermark (
            id          INTEGER PRIMARY KEY CHECK (id = 1),
            seq         INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO rollups.rollup_watermark VALUES (1, 0);
        """
}

/// One of the two rollups files: which tables it holds and where it lives. Each has a worker
/// thread of its own (`RollupWorker`), a connection and lock of its own, a watermark and a
/// rebuild backlog of its own, and applies its own share of every event (`RollupUpdate.apply`).
/// The tables are shared out so the two workers cost about the same per event.
package enum RollupPart: Int, CaseIterable, Sendable {
    /// `PATH-rollups`, attached as `rollups`: the rows per event of the funnels and retention
    /// (`rollup_kind_events` and the numbers it uses) and the click runs.
    case kinds
    /// `PATH-rollups-pages`, attached as `rollup_pages`: the counts per day (events, distinct
    /// ids, dwell, the page of each view's first click) and the page sequences with their
    /// transitions.
    case pages

    /// The schema name every connection attaches the file under.
    var schema: String {
        switch self {
        case .kinds: "rollups"
        case .pages: "rollup_pages"
        }
    }

    /// What follows the database's path in the file's.
    package var suffix: String {
        switch self {
        case .kinds: "-rollups"
        case .pages: "-rollups-pages"
        }
    }

    /// The file of the database at `path`.
    func path(of path: String) -> String { path + suffix }

    /// The table of the one row `(1, seq)`: the part holds every event up to `seq` (but those
    /// of apps in `backlog`).
    var watermark: String {
        switch self {
        case .kinds: "rollup_watermark"
        case .pages: "rollup_pages_watermark"
        }
    }

    /// The table of the apps whose rollups in this file wait to be rebuilt (`rebuildRollups`).
    var backlog: String {
        switch self {
        case .kinds: "rollup_backlog"
        case .pages: "rollup_pages_backlog"
        }
    }

    /// The rollup tables of the file with an `app_key` column (a rebuild empties an app's rows).
    var appTables: [String] {
        switch self {
        case .kinds: ["rollup_click_runs"]
        case .pages: Schema.rollupTables.filter { $0 != "rollup_click_runs" }
        }
    }

    /// Every table of the file, the watermark last.
    var tables: [String] {
        switch self {
        case .kinds: appTables + ["rollup_kinds", "rollup_sources", "rollup_ids", "rollup_views", "rollup_kind_events", backlog, watermark]
        case .pages: appTables + [backlog, watermark]
        }
    }

    /// Its tables at this build's layout (`RollupFile.layout`; docs/schema.md), created when absent.
    var definition: String {
        switch self {
        case .kinds: Self.kindsDefinition
        case .pages: Self.pagesDefinition
        }
    }

    private static let kindsDefinition = """
        CREATE TABLE IF NOT EXISTS rollups.rollup_click_runs (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            actor       INTEGER NOT NULL,
            view        INTEGER NOT NULL,
            start_ts    INTEGER NOT NULL,
            end_ts      INTEGER NOT NULL,
            clicks      INTEGER NOT NULL,
            start_day   INTEGER NOT NULL,
            end_day     INTEGER NOT NULL,
            PRIMARY KEY (app_key, app_version, actor, view, start_ts)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS rollups.rollup_bursts ON rollup_click_runs (app_key, start_day, end_day, clicks) WHERE clicks >= 3;
        CREATE INDEX IF NOT EXISTS rollups.rollup_runs_over_midnight ON rollup_click_runs (app_key, start_day, end_day, end_ts)
            WHERE start_day <> end_day;
        CREATE TABLE IF NOT EXISTS rollups.rollup_kinds (
            number      INTEGER PRIMARY KEY,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            UNIQUE (type, name)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_sources (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            UNIQUE (app_key, app_version)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_ids (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            UNIQUE (app_key, id)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_views (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            view        TEXT    NOT NULL,
            UNIQUE (app_key, view)
        );
        CREATE TABLE IF NOT EXISTS rollups.rollup_kind_events (
            kind        INTEGER NOT NULL,
            first_ts    INTEGER NOT NULL,
            first_seq   INTEGER NOT NULL,
            last_ts     INTEGER NOT NULL,
            last_seq    INTEGER NOT NULL,
            entries     INTEGER NOT NULL,
            events      BLOB    NOT NULL,
            PRIMARY KEY (kind, first_ts, first_seq)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_backlog (
            app_key     TEXT    NOT NULL PRIMARY KEY,
            next_seq    INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollups.rollup_watermark (
            id          INTEGER PRIMARY KEY CHECK (id = 1),
            seq         INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO rollups.rollup_watermark VALUES (1, 0);
        """

    private static let pagesDefinition = """
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_events (
            app_key     TEXT    NOT NULL,
            app_version TEXT,
            day         INTEGER NOT NULL,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            page        TEXT,
            path        TEXT,
            title       TEXT,
            events      INTEGER NOT NULL,
            dwell_count INTEGER NOT NULL,
            dwell_sum   INTEGER NOT NULL,
            \(RollupHours.definitions)
        );
        CREATE INDEX IF NOT EXISTS rollup_pages.rollup_events_key ON rollup_events (app_key, day, type, name);
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_actors (
            app_key     TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            PRIMARY KEY (app_key, day, kind, id, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_actor_counts (
            app_key     TEXT    NOT NULL,
            all_versions INTEGER NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            distinct_ids INTEGER NOT NULL,
            PRIMARY KEY (app_key, all_versions, app_version, day, kind)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_dwell_buckets (
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, bucket, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_dwell_days (
            page        TEXT    NOT NULL,
            duration    INTEGER NOT NULL,
            day         INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, duration, day, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_dwell_day_buckets (
            day         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (day, page, bucket, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_page_enters (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            sequence    TEXT    NOT NULL,
            ts          INTEGER NOT NULL,
            seq         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, sequence, ts, seq)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_transitions (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            from_day    INTEGER NOT NULL,
            to_day      INTEGER NOT NULL,
            from_page   TEXT    NOT NULL,
            to_page     TEXT    NOT NULL,
            transitions INTEGER NOT NULL,
            PRIMARY KEY (app_key, app_version, from_day, to_day, from_page, to_page)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_view_pages (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            view        TEXT    NOT NULL,
            first_seq   INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, day, view)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_pages_backlog (
            app_key     TEXT    NOT NULL PRIMARY KEY,
            next_seq    INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS rollup_pages.rollup_pages_watermark (
            id          INTEGER PRIMARY KEY CHECK (id = 1),
            seq         INTEGER NOT NULL
        );
        INSERT OR IGNORE INTO rollup_pages.rollup_pages_watermark VALUES (1, 0);
        """
}

extension RollupFile {
    /// Attaches both rollups files of the database at `path` (`RollupPart`). A writable
    /// connection creates each when absent and writes it without an fsync per transaction; it
    /// makes the tables of a file at this build's layout (`RollupFile.layout`) when absent. A
    /// `PATH-rollups` that records no layout (new, or made before layouts were recorded) gets
    /// layout 1's, which migration 10 fills; a file at another layout is left as it is until
    /// `RollupFile.check` makes it anew once the migrations have run. A read-only connection
    /// attaches each file read-only; when one is missing (a database copied without it) or of
    /// another layout (one the collector has not made anew yet), its tables are made empty among
    /// the connection's temporary ones (a read-only connection can attach nothing writable) with
    /// its watermark at 0, so reports read the events.
    static func attach(to db: SQLiteDatabase, database path: String, writable: Bool) throws(SQLiteError) {
        for part in RollupPart.allCases {
            do throws(SQLiteError) {
                try attach(part, to: db, database: path, writable: writable)
            } catch where error.isDamage {
                var named = error
                named.file = part.path(of: path)
                named.advice =
                    "\(part.path(of: path)) is damaged; it holds report rollups derived from the events, so nothing is lost: "
                    + "'autotrack-collector serve --db \(path)' keeps it aside as \(part.path(of: path)).damaged-TIME and rebuilds it "
                    + "from the events (reports read the events meanwhile)"
                throw named
            }
        }
    }

    /// Attaches the rollups file of `part` (see `attach(to:database:writable:)`).
    private static func attach(_ part: RollupPart, to db: SQLiteDatabase, database path: String, writable: Bool) throws(SQLiteError) {
        let file = part.path(of: path)
        if writable {
            // An attached file is opened as the main one was: without "create" for an existing
            // database, so a missing rollups file is created on its own first.
            if !FileManager.default.fileExists(atPath: file) { _ = try SQLiteDatabase(path: file, mode: .readWriteCreate) }
            try db.run("ATTACH DATABASE \(file) AS \(raw: part.schema)")
            let journal = try db.scalar(SQLQuery(raw: "PRAGMA \(part.schema).journal_mode = WAL"), as: String.self)
            guard journal?.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLiteCode.error, message: "could not switch \(file) to WAL", sql: "PRAGMA \(part.schema).journal_mode = WAL")
            }
            try db.execute("PRAGMA \(part.schema).synchronous = NORMAL")
            // Migration 10 to run (a database before schema 10, a new one too) moves the
            // tables into layout 1's: a `PATH-rollups` of another is emptied for it first.
            let schemaVersion = try db.scalar("PRAGMA main.user_version", as: Int64.self) ?? 0
            if part == .kinds, schemaVersion < 10, layout(recorded: try layoutRecorded(part, on: db)) != 1 {
                try db.transaction { () throws(SQLiteError) in
                    try dropTables(part, on: db)
                    try db.execute("PRAGMA \(part.schema).user_version = 0")
                }
            }
            switch try layoutRecorded(part, on: db) {
            case layout: try db.transaction { () throws(SQLiteError) in try db.execute(part.definition) }
            // New, or made before layouts were recorded: layout 1, which migration 10 fills.
            case 0 where part == .kinds: try db.transaction { () throws(SQLiteError) in try db.execute(firstLayout) }
            // Another layout (a new `PATH-rollups-pages` too): `RollupFile.check` makes it anew.
            default: break
            }
        } else if FileManager.default.fileExists(atPath: file) {
            try db.run("ATTACH DATABASE \("file:\(uriEscaped(file))?mode=ro") AS \(raw: part.schema)")
            // Another layout's tables cannot answer.
            if layout(recorded: try layoutRecorded(part, on: db)) != layout {
                try db.run("DETACH DATABASE \(raw: part.schema)")
                try db.execute(part.definition.replacingOccurrences(of: "\(part.schema).", with: "temp."))
            }
        } else {
            try db.execute(part.definition.replacingOccurrences(of: "\(part.schema).", with: "temp."))
        }
    }

    /// Drops every table of the attached rollups file of `part` (their indexes go with them).
    static func dropTables(_ part: RollupPart, on db: SQLiteDatabase) throws(SQLiteError) {
        let tables = try db.query("SELECT name FROM \(raw: part.schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
            r throws(SQLDecodingError) in try r.decode("name", as: String.self)
        }
        for table in tables { try db.execute("DROP TABLE \(part.schema).\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"") }
    }

    /// The `user_version` of the attached rollups file of `part` (`RollupFile.layout`).
    static func layoutRecorded(_ part: RollupPart, on db: SQLiteDatabase) throws(SQLiteError) -> Int64 {
        try db.scalar("PRAGMA \(raw: part.schema).user_version", as: Int64.self) ?? 0
    }

    /// `path` as the path part of a `file:` URI (`%`, `?` and `#` escaped).
    private static func uriEscaped(_ path: String) -> String {
        var out = ""
        for c in path.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "?": out += "%3f"
            case "#": out += "%23"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

extension RollupFile {
    /// `BEGIN IMMEDIATE` for the events' file alone: IMMEDIATE takes the write lock of every
    /// attached file, the rollups' too, so an append would wait for the rollup worker's chunk.
    /// A write that changes nothing takes the events' lock up front instead, so a busy file
    /// fails here (after the busy timeout) rather than halfway through a batch.
    static func beginWritingEvents(on db: SQLiteDatabase) throws(SQLiteError) {
        try db.beginWriting(lockingWith: "UPDATE main.batches SET seq = seq WHERE 0")
    }

    /// `BEGIN IMMEDIATE` for the rollups file of `part` alone (see `beginWritingEvents`): a
    /// rollup worker's transaction never waits for an append's, nor for the other worker's.
    static func beginWriting(_ part: RollupPart, on db: SQLiteDatabase) throws(SQLiteError) {
        try db.beginWriting(lockingWith: "UPDATE \(raw: part.schema).\(raw: part.watermark) SET seq = seq WHERE 0")
    }

    /// A read-only connection to the events' database at `path` with its rollups files attached
    /// (reports read the rollup tables by their plain names).
    static func openReader(_ path: String) throws(SQLiteError) -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        try attach(to: db, database: path, writable: false)
        return db
    }
}

extension RollupFile {
    /// Before a writable store attaches them: each rollups file of the database at `path` that
    /// SQLite cannot read (`SQLiteError.isDamage`: a scribbled header, a file cut short) is kept
    /// aside as `FILE.damaged-STAMP` (with its `-wal` and `-shm`), so a new one is made and its
    /// worker rebuilds it from the events: they are derived, nothing is lost. Returns a sentence
    /// per file set aside.
    static func setAsideDamaged(database path: String) throws(StoreError) -> [String] {
        var notices: [String] = []
        for part in RollupPart.allCases {
            let file = part.path(of: path)
            guard FileManager.default.fileExists(atPath: file) else { continue }
            do throws(SQLiteError) {
                let db = try SQLiteDatabase(path: file, mode: .readWriteExisting)
                _ = try db.scalar("SELECT COUNT(*) FROM sqlite_master", as: Int.self)
                continue
            } catch where error.isDamage {
                let kept = file + ".damaged-" + IngestRecovery.stamp(Date(), readable: false)
                do throws(PosixError) {
                    for suffix in ["", "-wal", "-shm"] where try Posix.fileIdentity(path: file + suffix) != nil {
                        try Posix.rename(file + suffix, kept + suffix)
                    }
                } catch {
                    throw StoreError(
                        .damaged, "the report rollups file \(file) is damaged (SQLite: \(error)) and could not be kept aside as \(kept): \(error); move it away by hand, it is rebuilt from the events")
                }
                notices.append(
                    "the report rollups file \(file) was damaged (SQLite: \(error.message)); it is kept as \(kept), and a new one is rebuilt from the events while serving (reports read the events meanwhile)")
            } catch {
                throw error.storeError
            }
        }
        return notices
    }

    /// After the migrations, on the writable connection, for each rollups file. A file at another
    /// layout than this build's (a new `PATH-rollups-pages` too, and a `PATH-rollups` of the
    /// single file before it) is made anew: every table in it dropped, its part's created
    /// (`RollupPart.definition`), its watermark at 0, so its worker applies every stored event.
    /// A watermark past the last stored event means the file's rollups count events the events'
    /// file no longer has (lost in a crash when it is written with `synchronous = NORMAL`, or an
    /// older copy of it put back): the file is emptied and its worker applies every stored event
    /// again. Each file on its own: the other keeps what it holds.
    static func check(_ db: SQLiteDatabase) throws(SQLiteError) {
        let last = try db.scalar("SELECT COALESCE(MAX(seq), 0) FROM main.events", as: Int64.self) ?? 0
        for part in RollupPart.allCases {
            let schema = part.schema
            // (0, a file made before layouts were recorded, is layout 1: never this build's.)
            if layout(recorded: try layoutRecorded(part, on: db)) != layout {
                try db.transaction { () throws(SQLiteError) in
                    try dropTables(part, on: db)
                    try db.execute(part.definition)
                    // PRAGMA takes no parameters; the value is our own integer.
                    try db.execute("PRAGMA \(schema).user_version = \(layout)")
                }
                continue
            }
            let watermark = try db.scalar("SELECT seq FROM \(raw: schema).\(raw: part.watermark)", as: Int64.self) ?? 0
            guard watermark > last else { continue }
            try db.transaction { () throws(SQLiteError) in
                for table in part.tables where table != part.watermark { try db.run("DELETE FROM \(raw: schema).\(raw: table)") }
                try db.run("UPDATE \(raw: schema).\(raw: part.watermark) SET seq = 0")
            }
        }
    }
}
