import Foundation
import StoreSQL

/// The rollup tables live in a file of their own beside the database (`PATH-rollups`, schema
/// migration 10), attached to every connection as `rollups`, so an unqualified `rollup_*` name
/// means its table there.
///
/// Why a file of its own: SQLite has one write lock per file. With the rollups in the events'
/// file, the rollup worker's transactions and the appends took turns: an append waited for a
/// chunk, and the worker could not use the processor while an append waited for its fsync. Now
/// each file has its own lock, and the worker applies rollups while appends commit.
///
/// The rollups are derived from the events, so their file is written with
/// `synchronous = NORMAL` (no fsync per transaction). Their watermark lives with them: after a
/// crash the file holds the rollups exactly up to its watermark, and the worker applies the
/// events after it again. A missing file is created empty (watermark 0) and filled from every
/// stored event; a watermark past the last stored event (events lost with a file written at
/// `synchronous = NORMAL`) empties it the same way (`SQLiteEventStore.checkRollupFile`).
enum RollupFile {
    /// The schema name every connection attaches the file under.
    static let schema = "rollups"

    /// The rollups file of the database at `path`.
    static func path(of path: String) -> String { path + "-rollups" }

    /// The files beside a database that belong to its rollups file (`serve` overwriting a
    /// database removes them too).
    static let suffixes = ["-rollups", "-rollups-wal", "-rollups-shm", "-rollups-journal"]

    /// The tables a rollups file holds, in the order migration 10 moves them.
    static let tables =
        Schema.rollupTables + ["rollup_kinds", "rollup_sources", "rollup_ids", "rollup_kind_events", "rollup_backlog", "rollup_watermark"]

    /// The layout of the tables this build keeps in a rollups file, recorded in the file's
    /// `PRAGMA user_version`. The file is derived from the events, so changing its tables takes
    /// no migration: bump this, and a file at another layout is emptied, made anew and refilled
    /// from every stored event (`check`; a read-only reader reads the events meanwhile). A file
    /// made before layouts were recorded reads 0, which is layout 1.
    static let layout: Int64 = 2

    /// The layout of a file whose `user_version` reads `recorded`.
    static func layout(recorded: Int64) -> Int64 { recorded == 0 ? 1 : recorded }

    /// The tables of `layout`: this build's. Layout 2: `rollup_kind_events` in blocks of events
    /// (KindEventBlocks.swift) instead of one row per event.
    static let definition = KindEventBlocks.replacingRowsTable(in: firstLayout)

    /// Layout 1: the tables as migrations 5 and 8 left them in the events' file (docs/schema.md),
    /// created when absent. Never edited, as a migration is not: a database below schema 10
    /// attaches a new file of this layout for migration 10 to move its tables into, and `check`
    /// then brings the file to `layout`.
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

extension SQLiteDatabase {
    /// Attaches the rollups file of the database at `path` as `rollups`. A writable connection
    /// creates it when absent (with its tables: `RollupFile.definition`) and writes it without an
    /// fsync per transaction. A read-only one attaches it read-only; when there is none (a
    /// database copied without it), its tables are made empty among the connection's temporary
    /// ones (a read-only connection can attach nothing writable) with the watermark at 0, so
    /// reports read the events.
    func attachRollups(of path: String, writable: Bool) throws(SQLiteError) {
        let file = RollupFile.path(of: path)
        if writable {
            // An attached file is opened as the main one was: without "create" for an existing
            // database, so a missing rollups file is created on its own first.
            if !FileManager.default.fileExists(atPath: file) { _ = try SQLiteDatabase(path: file, mode: .readWriteCreate) }
            try run("ATTACH DATABASE \(file) AS \(raw: RollupFile.schema)")
            let journal = try scalar(SQLQuery(raw: "PRAGMA \(RollupFile.schema).journal_mode = WAL"), as: String.self)
            guard journal?.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLiteCode.error, message: "could not switch \(file) to WAL", sql: "PRAGMA rollups.journal_mode = WAL")
            }
            try execute("PRAGMA \(RollupFile.schema).synchronous = NORMAL")
            switch try rollupsLayoutRecorded() {
            case RollupFile.layout: try transaction { () throws(SQLiteError) in try execute(RollupFile.definition) }
            // New, or made before layouts were recorded: layout 1, which migration 10 fills.
            case 0: try transaction { () throws(SQLiteError) in try execute(RollupFile.firstLayout) }
            // Another layout: `RollupFile.check` makes it anew once the migrations have run.
            default: break
            }
        } else if FileManager.default.fileExists(atPath: file) {
            try run("ATTACH DATABASE \("file:\(Self.uriEscaped(file))?mode=ro") AS \(raw: RollupFile.schema)")
            // Another layout's tables (a file the collector has not made anew yet) cannot answer.
            if RollupFile.layout(recorded: try rollupsLayoutRecorded()) != RollupFile.layout {
                try run("DETACH DATABASE \(raw: RollupFile.schema)")
                try execute(RollupFile.definition.replacingOccurrences(of: "\(RollupFile.schema).", with: "temp."))
            }
        } else {
            try execute(RollupFile.definition.replacingOccurrences(of: "\(RollupFile.schema).", with: "temp."))
        }
    }

    /// The attached rollups file's `user_version` (`RollupFile.layout`).
    func rollupsLayoutRecorded() throws(SQLiteError) -> Int64 {
        try scalar("PRAGMA \(raw: RollupFile.schema).user_version", as: Int64.self) ?? 0
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

extension SQLiteDatabase {
    /// `BEGIN IMMEDIATE` for the events' file alone: IMMEDIATE takes the write lock of every
    /// attached file, the rollups' too, so an append would wait for the rollup worker's chunk.
    /// A write that changes nothing takes the events' lock up front instead, so a busy file
    /// fails here (after the busy timeout) rather than halfway through a batch.
    func beginWritingEvents() throws(SQLiteError) {
        try execute("BEGIN")
        do throws(SQLiteError) {
            try run("UPDATE main.batches SET seq = seq WHERE 0")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `BEGIN IMMEDIATE` for the rollups file alone (see `beginWritingEvents`): the rollup
    /// worker's transaction never waits for an append's.
    func beginWritingRollups() throws(SQLiteError) {
        try execute("BEGIN")
        do throws(SQLiteError) {
            try run("UPDATE \(raw: RollupFile.schema).rollup_watermark SET seq = seq WHERE 0")
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}

extension RollupFile {
    /// After the migrations, on the writable connection. A file at another layout than this
    /// build's is made anew: every table in it dropped, `definition` created, the watermark at 0,
    /// so the worker applies every stored event. A watermark past the last stored event means the
    /// rollups count events the events' file no longer has (lost in a crash when it is written
    /// with `synchronous = NORMAL`, or an older copy of it put back): the rollups are emptied and
    /// the worker applies every stored event again.
    static func check(_ db: SQLiteDatabase) throws(SQLiteError) {
        let recorded = try db.rollupsLayoutRecorded()
        if layout(recorded: recorded) != layout {
            try db.transaction { () throws(SQLiteError) in
                let tables = try db.query("SELECT name FROM \(raw: schema).sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") {
                    r throws(SQLDecodingError) in try r.decode("name", as: String.self)
                }
                for table in tables { try db.execute("DROP TABLE \(schema).\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"") }
                try db.execute(definition)
                // PRAGMA takes no parameters; the value is our own integer.
                try db.execute("PRAGMA \(schema).user_version = \(layout)")
            }
            return
        }
        if recorded != layout { try db.execute("PRAGMA \(schema).user_version = \(layout)") }
        let watermark = try db.scalar("SELECT seq FROM \(raw: schema).rollup_watermark", as: Int64.self) ?? 0
        let last = try db.scalar("SELECT COALESCE(MAX(seq), 0) FROM main.events", as: Int64.self) ?? 0
        guard watermark > last else { return }
        try db.transaction { () throws(SQLiteError) in
            for table in tables where table != "rollup_watermark" { try db.run("DELETE FROM \(raw: schema).\(raw: table)") }
            try db.run("UPDATE \(raw: schema).rollup_watermark SET seq = 0")
        }
    }
}
