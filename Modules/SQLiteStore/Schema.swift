import EventStore
import StoreSQL

/// The database schema as an ordered list of migrations; `PRAGMA user_version` says how many ran.
///
/// A migration is only ever appended, never edited: a database at version n has run exactly the
/// first n. docs/schema.md describes the result for people querying it with `sqlite3`.
enum Schema {
    /// The version this build writes; a database with a higher one is refused, not guessed at.
    static var currentVersion: Int64 { Int64(migrations.count) }

    /// The tables every Autotrack database at `currentVersion` has; a file without them is not ours.
    static let tables: Set<String> = ["events", "rejected", "batches", "rules", "rule_sets"]

    /// The rollup tables of an app key (migration 5), emptied before its rollups are rebuilt.
    static let rollupTables = [
        "rollup_events", "rollup_actors", "rollup_actor_counts", "rollup_dwell_buckets", "rollup_dwell_days",
        "rollup_dwell_day_buckets", "rollup_page_enters",
        "rollup_transitions", "rollup_click_runs", "rollup_view_pages",
    ]

    // Indexes cost every insert, and
    // ingest runs all day while reports run now and then and scan anyway. So `events` keeps
    // only the dedup key, and its time order is a map of one row per commit (migration 11);
    // docs/schema.md shows indexes to add for other queries.
    static let migrations: [String] = [
        // 1: events, rejected events, received batches, published rules.
        """
        CREATE TABLE events (
            seq         INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            ts          INTEGER NOT NULL,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            page        TEXT,
            path        TEXT,
            view_id     TEXT,
            session     TEXT,
            duration    INTEGER,
            props       TEXT    NOT NULL DEFAULT '{}',
            app_version TEXT,
            received_at INTEGER NOT NULL,
            UNIQUE (app_key, id)
        );
        CREATE INDEX events_ts ON events (app_key, ts);

        CREATE TABLE rejected (
            seq         INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            app_version TEXT,
            raw         TEXT    NOT NULL,
            reason      TEXT    NOT NULL,
            received_at INTEGER NOT NULL
        );
        CREATE INDEX rejected_reason ON rejected (reason);

        CREATE TABLE batches (
            seq         INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            app_version TEXT,
            agent       TEXT,
            batch       TEXT,
            stored      INTEGER NOT NULL,
            duplicates  INTEGER NOT NULL,
            rejected    INTEGER NOT NULL,
            received_at INTEGER NOT NULL
        );

        CREATE TABLE rules (
            app_key      TEXT    NOT NULL,
            id           TEXT    NOT NULL,
            app_version  TEXT    NOT NULL,
            view_event   TEXT    NOT NULL,
            view_path    TEXT    NOT NULL,
            key_path     TEXT    NOT NULL,
            key_name     TEXT    NOT NULL,
            content      TEXT,
            json         TEXT    NOT NULL,
            position     INTEGER NOT NULL,
            published_at INTEGER NOT NULL,
            PRIMARY KEY (app_key, id)
        ) WITHOUT ROWID;
        """,
        // 2: who and when (docs/wire.md `user`, `device`, `sentAt`); a rule is its key columns and its
        // JSON (the one codec), and each app's rule set has a sampling rate and a stored etag.
        """
        ALTER TABLE events ADD COLUMN user_id TEXT;
        ALTER TABLE events ADD COLUMN device_id TEXT;
        ALTER TABLE events ADD COLUMN corrected_ts INTEGER NOT NULL DEFAULT 0;
        UPDATE events SET corrected_ts = ts;
        DROP INDEX events_ts;
        CREATE INDEX events_corrected_ts ON events (app_key, corrected_ts);
        ALTER TABLE batches ADD COLUMN sent_at INTEGER;

        CREATE TABLE rules_v2 (
            app_key      TEXT    NOT NULL,
            id           TEXT    NOT NULL,
            position     INTEGER NOT NULL,
            json         TEXT    NOT NULL,
            published_at INTEGER NOT NULL,
            PRIMARY KEY (app_key, id)
        ) WITHOUT ROWID;
        INSERT INTO rules_v2 SELECT app_key, id, position, json, published_at FROM rules;
        DROP TABLE rules;
        ALTER TABLE rules_v2 RENAME TO rules;

        CREATE TABLE rule_sets (
            app_key      TEXT    NOT NULL PRIMARY KEY,
            sample_rate  REAL    NOT NULL,
            etag         TEXT    NOT NULL,
            published_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO rule_sets SELECT app_key, 1.0, '', MAX(published_at) FROM rules GROUP BY app_key;
        """,
        // 3: the analytics' kinds scan (funnel steps, retention events) reads only the events of
        // the kinds it names, in a time range, instead of the whole table.
        """
        CREATE INDEX events_type_name ON events (type, name, corrected_ts);
        """,
        // 4: funnels and retention tables read their rows from this index alone (no table row
        // visited): it replaces version 3's index, with the filter and actor columns after its key.
        """
        DROP INDEX events_type_name;
        CREATE INDEX events_kind_actor ON events (type, name, corrected_ts, app_key, user_id, device_id);
        """,
        // 5: rollup tables, kept by every append in the transaction that stores the events
        // (SQLiteRollups.swift), so a report reads summaries, not a million events. In the
        // tables without rowid an event without an app version goes under ''.
        """
        CREATE TABLE rollup_events (
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
        CREATE INDEX rollup_events_key ON rollup_events (app_key, day, type, name);

        CREATE TABLE rollup_actors (
            app_key     TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            PRIMARY KEY (app_key, day, kind, id, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_actor_counts (
            app_key     TEXT    NOT NULL,
            all_versions INTEGER NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            kind        TEXT    NOT NULL,
            distinct_ids INTEGER NOT NULL,
            PRIMARY KEY (app_key, all_versions, app_version, day, kind)
        ) WITHOUT ROWID;

        CREATE TABLE rollup_dwell_buckets (
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, bucket, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_dwell_days (
            page        TEXT    NOT NULL,
            duration    INTEGER NOT NULL,
            day         INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (page, duration, day, app_key, app_version)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_dwell_day_buckets (
            day         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            bucket      INTEGER NOT NULL,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            leaves      INTEGER NOT NULL,
            PRIMARY KEY (day, page, bucket, app_key, app_version)
        ) WITHOUT ROWID;

        CREATE TABLE rollup_page_enters (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            sequence    TEXT    NOT NULL,
            ts          INTEGER NOT NULL,
            seq         INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, sequence, ts, seq)
        ) WITHOUT ROWID;
        CREATE TABLE rollup_transitions (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            from_day    INTEGER NOT NULL,
            to_day      INTEGER NOT NULL,
            from_page   TEXT    NOT NULL,
            to_page     TEXT    NOT NULL,
            transitions INTEGER NOT NULL,
            PRIMARY KEY (app_key, app_version, from_day, to_day, from_page, to_page)
        ) WITHOUT ROWID;

        CREATE TABLE rollup_click_runs (
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
        CREATE INDEX rollup_bursts ON rollup_click_runs (app_key, start_day, end_day, clicks) WHERE clicks >= 3;
        CREATE INDEX rollup_runs_over_midnight ON rollup_click_runs (app_key, start_day, end_day, end_ts) WHERE start_day <> end_day;
        CREATE TABLE rollup_view_pages (
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            day         INTEGER NOT NULL,
            view        TEXT    NOT NULL,
            first_seq   INTEGER NOT NULL,
            page        TEXT    NOT NULL,
            PRIMARY KEY (app_key, app_version, day, view)
        ) WITHOUT ROWID;

        CREATE TABLE rollup_kinds (
            number      INTEGER PRIMARY KEY,
            type        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            UNIQUE (type, name)
        );
        CREATE TABLE rollup_sources (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            UNIQUE (app_key, app_version)
        );
        CREATE TABLE rollup_ids (
            number      INTEGER PRIMARY KEY,
            app_key     TEXT    NOT NULL,
            id          TEXT    NOT NULL,
            UNIQUE (app_key, id)
        );
        CREATE TABLE rollup_kind_events (
            kind        INTEGER NOT NULL,
            ts          INTEGER NOT NULL,
            seq         INTEGER NOT NULL,
            source      INTEGER NOT NULL,
            actor       INTEGER,
            device      INTEGER,
            session     INTEGER,
            PRIMARY KEY (kind, ts, seq)
        ) WITHOUT ROWID;

        -- Funnels and retention tables read rollup_kind_events now: version 4's index goes. The
        -- report's KVC errors, which read their events' props, get a partial index of their own
        -- (kvc_error events are few, so it costs other inserts nothing but the test).
        DROP INDEX events_kind_actor;
        CREATE INDEX events_kvc_errors ON events (app_key, corrected_ts) WHERE type = 'kvc_error';

        CREATE TABLE rollup_backlog (
            app_key     TEXT    NOT NULL PRIMARY KEY,
            next_seq    INTEGER NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO rollup_backlog SELECT DISTINCT app_key, 0 FROM events;
        """,
        // 6: snapshots (a page's PNG and view tree, sent while circle mode is on) and circle mode
        // per app key. `seq` is the snapshot's id (AUTOINCREMENT: an id is never given twice, so
        // a studio holding an old id never sees another picture under it). An app without a
        // version stores ''. The page index serves the kept-history bound and the listing, the
        // time index `prune`.
        """
        CREATE TABLE snapshots (
            seq         INTEGER PRIMARY KEY AUTOINCREMENT,
            app_key     TEXT    NOT NULL,
            app_version TEXT    NOT NULL,
            page        TEXT    NOT NULL,
            captured_at INTEGER NOT NULL,
            received_at INTEGER NOT NULL,
            width       INTEGER NOT NULL,
            height      INTEGER NOT NULL,
            png         BLOB    NOT NULL,
            tree        TEXT    NOT NULL
        );
        CREATE INDEX snapshots_page ON snapshots (app_key, app_version, page, seq);
        CREATE INDEX snapshots_captured_at ON snapshots (captured_at);

        CREATE TABLE circle_modes (
            app_key     TEXT    NOT NULL PRIMARY KEY,
            until       INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 7: identity merge's device links (SQLiteDeviceLinks.swift).
        DeviceLinkTable.migration,
        // 8: the rollups follow the events behind a watermark instead of inside each append's
        // transaction (SQLiteRollupWorker.swift): every app not in `rollup_backlog` has in its
        // rollups exactly its events up to `seq`. Until now every append kept them: all stored.
        """
        CREATE TABLE rollup_watermark (
            id          INTEGER PRIMARY KEY CHECK (id = 1),
            seq         INTEGER NOT NULL
        );
        INSERT INTO rollup_watermark SELECT 1, COALESCE(MAX(seq), 0) FROM events;
        """,
        // 9: the devices that sent an event without a user (SQLiteDeviceLinks.swift).
        DeviceLinkTable.anonymousMigration,
        // 10: the rollup tables move to a file of their own, attached as `rollups` (RollupFile.swift),
        // so the rollup workers never take the events' write lock. Emptied there first: a
        // crash after that file committed and before this one did runs this again.
        RollupFile.tables.map { t in "DELETE FROM rollups.\(t); INSERT INTO rollups.\(t) SELECT * FROM main.\(t); DROP TABLE main.\(t);" }
            .joined(separator: "\n"),
        // 11: the time zone map of `events` replaces its time index (EventZones.swift): one row per
        // commit and app instead of an index entry per event at a random place.
        EventZones.migration,
        // 12: appends go to the ingest log (IngestLog.swift) and are stored in `events` behind
        // it; every logged batch up to `position` is stored. `log_id` names this database in its
        // log, so a log left by another database is never stored into it. Databases before it
        // had no log.
        """
        CREATE TABLE IF NOT EXISTS ingest_applied (
            id          INTEGER PRIMARY KEY CHECK (id = 1),
            position    INTEGER NOT NULL,
            log_id      TEXT NOT NULL
        );
        INSERT OR IGNORE INTO ingest_applied VALUES (1, 0, lower(hex(randomblob(16))));
        """,
        // 13: the device that sent a snapshot (docs/wire.md `SNAPSHOT` `device`); NULL when it
        // named none, as every snapshot stored before. The names people gave pages in the studio.
        """
        ALTER TABLE snapshots ADD COLUMN device TEXT;
        CREATE TABLE page_names (
            app_key     TEXT    NOT NULL,
            page        TEXT    NOT NULL,
            name        TEXT    NOT NULL,
            PRIMARY KEY (app_key, page)
        ) WITHOUT ROWID;
        """,
    ]

    /// Brings the database to `currentVersion`, each migration in its own transaction. Call
    /// `problem(_:migrating:)` first: this assumes the database is ours and not newer.
    static func migrate(_ db: SQLiteDatabase) throws(SQLiteError) {
        let version = try db.scalar("PRAGMA user_version", as: Int64.self) ?? 0
        guard version < currentVersion else { return }
        for v in Int(version)..<migrations.count {
            try db.transaction { () throws(SQLiteError) in
                try db.execute(migrations[v])
                if v == 1 { try storeRuleSetEtags(db) }
                // PRAGMA takes no parameters; the value is our own integer.
                try db.execute("PRAGMA user_version = \(v + 1)")
            }
        }
    }

    /// Migration 2's step SQL cannot do: the etag of every rule set published before it.
    private static func storeRuleSetEtags(_ db: SQLiteDatabase) throws(SQLiteError) {
        for appKey in try db.query("SELECT app_key FROM rule_sets", { r throws(SQLDecodingError) in try r.decode("app_key", as: String.self) }) {
            let json = try db.query("SELECT json FROM rules WHERE app_key = \(appKey) ORDER BY position") {
                r throws(SQLDecodingError) in try r.decode("json", as: String.self)
            }
            let etag = StoredRuleSet.etag(ruleJSON: json, sampleRate: 1)
            try db.run("UPDATE rule_sets SET etag = \(etag) WHERE app_key = \(appKey)")
        }
    }

    /// Why the database at `db` cannot be used as it is, or nil. A new, empty file is fine only when
    /// `creating` (`serve`: every other command refuses it, so a mistyped --db never becomes a
    /// database); an older schema is fine when `migrating`. Nothing here writes.
    static func problem(_ db: SQLiteDatabase, creating: Bool, migrating: Bool) throws(SQLiteError) -> StoreError? {
        let version = try db.scalar("PRAGMA user_version", as: Int64.self) ?? 0
        let names = Set(try db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { r throws(SQLDecodingError) in try r.decode("name", as: String.self) })
        if version == 0, names.isEmpty {
            if creating { return nil }
            if try db.scalar("PRAGMA page_count", as: Int64.self) == 0 {
                return StoreError(
                    .notAutotrack,
                    "\(db.path) is an empty file, not an Autotrack database; it was left unchanged; give the --db file "
                        + "that 'serve' writes ('serve' makes a new database; no other command does)")
            }
        }
        if version > currentVersion {
            return StoreError(
                .schemaVersion,
                "the database at \(db.path) has schema version \(version), newer than the \(currentVersion) this "
                    + "collector knows; use a newer autotrack-collector or another --db file")
        }
        // Version 1 had every table of `tables` but `rule_sets`.
        if version == 0 || !tables.subtracting(["rule_sets"]).isSubset(of: names) {
            return StoreError(
                .notAutotrack,
                "\(db.path) is not an Autotrack database (schema version \(version), tables: "
                    + "\(names.isEmpty ? "none" : names.sorted().joined(separator: ", "))); it was left unchanged; "
                    + "give the --db file that 'serve' writes")
        }
        if version < currentVersion, !migrating {
            return StoreError(
                .schemaVersion,
                "the database at \(db.path) has schema version \(version), older than \(currentVersion); it is read "
                    + "without changing it, so migrate it first: 'autotrack-collector serve --db \(db.path)' does on start")
        }
        return nil
    }
}
