/// The database schema as an ordered list of migrations; `PRAGMA user_version` says how many ran.
///
/// A migration is only ever appended, never edited: a database at version n has run exactly the
/// first n. docs/schema.md describes the result for people querying it with `sqlite3`.
enum Schema {
    /// The version this build writes; a database with a higher one is refused, not guessed at.
    static var currentVersion: Int64 { Int64(migrations.count) }

    // Indexes cost every insert (measured: three more on `events` halved the store's rate), and
    // ingest runs all day while reports run now and then and scan anyway. So `events` keeps
    // only the dedup key and time order; docs/schema.md shows indexes to add for other queries.
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
        """
    ]

    /// Brings the database to `currentVersion`, each migration in its own transaction.
    static func migrate(_ db: SQLiteDatabase) throws(SQLiteError) {
        let version = try db.scalarInt("PRAGMA user_version") ?? 0
        if version > currentVersion {
            throw SQLiteError(
                code: SQLiteCode.error,
                message: "the database at \(db.path) has schema version \(version), newer than the \(currentVersion) this "
                    + "collector knows; use a newer autotrack-collector or another --db file",
                sql: "PRAGMA user_version")
        }
        guard version < currentVersion else { return }
        for v in Int(version)..<migrations.count {
            try db.transaction { () throws(SQLiteError) in
                try db.execute(migrations[v])
                // PRAGMA takes no parameters; the value is our own integer.
                try db.execute("PRAGMA user_version = \(v + 1)")
            }
        }
    }
}
