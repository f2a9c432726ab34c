import EventModel
import Foundation
import Synchronization

/// The collector's SQLite database: events, rejected events, batches and published rules.
///
/// One connection per `EventStore`, guarded by a mutex: SQLite has one writer at a time
/// anyway, and a batch is one transaction. Readers (reports) open their own `EventStore`;
/// WAL lets them read while the server writes.
public final class EventStore: Sendable {
    /// How hard a commit waits for the disk.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// `synchronous=FULL`: a commit survives power loss. The default, because an `ACK`
        /// tells the client to forget the events, so a commit must not be undone afterwards.
        case full
        /// `synchronous=NORMAL`: survives a crash of the collector, not of the machine.
        case normal
    }

    /// Whether opening may create the file.
    public enum OpenMode: Sendable, Hashable {
        /// Create an empty database when the file is absent (the server).
        case create
        /// The file must exist (reports, listings): a mistyped path is an error, not an empty report.
        case existing
    }

    public let path: String
    /// nil once closed.
    private let connection: Mutex<SQLiteDatabase?>
    /// Batches waiting for the next group commit.
    private let pending = Mutex<[PendingBatch]>([])

    /// Opens (or creates) the database, sets WAL and durability, and migrates the schema.
    public init(path: String, mode: OpenMode = .create, durability: Durability = .full) throws(SQLiteError) {
        if case .existing = mode, !FileManager.default.fileExists(atPath: path) {
            throw SQLiteError(
                code: SQLiteCode.cantOpen, message: "no database at \(path); give the --db file that 'serve' writes", sql: "open \(path)")
        }
        let connection = try SQLiteDatabase(path: path, mode: mode == .create ? .readWriteCreate : .readWriteExisting)
        // WAL: readers never block the writer, and a commit is one append to the log.
        let journal = try connection.query("PRAGMA journal_mode = WAL")
        guard journal.first?.first?.text?.lowercased() == "wal" else {
            throw SQLiteError(
                code: SQLiteCode.error, message: "could not switch \(path) to WAL (got \(journal.first?.first?.text ?? "nothing"))",
                sql: "PRAGMA journal_mode = WAL")
        }
        try connection.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        try connection.execute("PRAGMA foreign_keys = ON")
        try Schema.migrate(connection)
        self.path = path
        self.connection = Mutex(connection)
    }

    /// The schema version of the open database (`PRAGMA user_version`).
    public func schemaVersion() throws(SQLiteError) -> Int64 {
        try connection.withLock { c throws(SQLiteError) in
            try opened(c).scalarInt("PRAGMA user_version") ?? 0
        }
    }

    /// The schema version this build writes.
    public static var currentSchemaVersion: Int64 { Schema.currentVersion }

    /// Validates and stores a batch; returns only after the COMMIT that holds it, so the outcome
    /// may be acknowledged. A repeated `(appKey, id)` is counted, not stored again; an invalid
    /// event is kept in `rejected` with its reason. A batch is atomic: all of it or none.
    ///
    /// Group commit: batches that arrive while a commit is running wait for the lock, and the
    /// first to get it writes every waiting batch (each under its own SAVEPOINT, so a batch that
    /// fails rolls back alone) and commits them together, with one fsync instead of one each.
    /// Nobody returns before the COMMIT that holds its batch.
    public func insert(_ batch: EventBatch) throws(SQLiteError) -> BatchOutcome {
        // Validation and row building need no lock: they run on the caller's thread, in parallel.
        let mine = PendingBatch(batch, receivedAt: Self.nowMilliseconds())
        pending.withLock { $0.append(mine) }
        try connection.withLock { c throws(SQLiteError) in
            if mine.isDone { return }  // A commit of another caller already held it.
            let db: SQLiteDatabase
            do throws(SQLiteError) {
                db = try opened(c)
            } catch {
                pending.withLock { $0.removeAll { $0 === mine } }
                throw error
            }
            let group = pending.withLock { p -> [PendingBatch] in
                defer { p = [] }
                return p
            }
            Self.commit(group, db)
        }
        return try mine.outcome()
    }

    /// Writes `group` in one transaction, a SAVEPOINT per batch, and records each batch's result.
    private static func commit(_ group: [PendingBatch], _ db: SQLiteDatabase) {
        var results: [Result<BatchOutcome, SQLiteError>] = []
        do throws(SQLiteError) {
            try db.execute("BEGIN IMMEDIATE")
            for batch in group {
                try db.execute("SAVEPOINT batch")
                do throws(SQLiteError) {
                    results.append(.success(try batch.write(to: db)))
                    try db.execute("RELEASE batch")
                } catch {
                    try? db.execute("ROLLBACK TO batch")
                    try? db.execute("RELEASE batch")
                    results.append(.failure(error))
                }
            }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            results = group.map { _ in .failure(error) }
        }
        for (batch, result) in zip(group, results) { batch.finish(result) }
    }

    /// Replaces, for every app key among `rules`, that app's whole rule set with the given
    /// rules (in their order), in one transaction. Returns how many rules were stored.
    ///
    /// Replacing rather than merging makes a publish the truth for its apps: a rule removed
    /// from the file stops being served.
    @discardableResult
    public func publish(_ rules: [StoredRule]) throws(SQLiteError) -> Int {
        let now = Self.nowMilliseconds()
        var seen = Set<String>()
        let appKeys = rules.map(\.appKey).filter { seen.insert($0).inserted }
        return try connection.withLock { c throws(SQLiteError) in
            let db = try opened(c)
            return try db.transaction { () throws(SQLiteError) -> Int in
                for key in appKeys { try db.run("DELETE FROM rules WHERE app_key = ?", [.text(key)]) }
                for (position, r) in rules.enumerated() {
                    // A repeated id within one publish: the later rule wins, as a later key does in JSON.
                    try db.run(
                        """
                        INSERT INTO rules (app_key, id, app_version, view_event, view_path, key_path, key_name, content, json,
                                           position, published_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        ON CONFLICT (app_key, id) DO UPDATE SET
                            app_version = excluded.app_version, view_event = excluded.view_event,
                            view_path = excluded.view_path, key_path = excluded.key_path, key_name = excluded.key_name,
                            content = excluded.content, json = excluded.json, position = excluded.position,
                            published_at = excluded.published_at
                        """,
                        [
                            .text(r.appKey), .text(r.id), .text(r.appVersion), .text(r.viewEvent), .text(r.viewPath),
                            .text(r.keyPath), .text(r.keyName), r.content.sqlite, .text(r.json), .int(Int64(position)),
                            .int(now),
                        ])
                }
                return try db.scalarInt(
                    "SELECT COUNT(*) FROM rules WHERE app_key IN (SELECT value FROM json_each(?))",
                    [.text(JSONValue.array(appKeys.map(JSONValue.string)).jsonText)]).map(Int.init) ?? 0
            }
        }
    }

    /// Published rules, by app key then publish order; only `appKey`'s when given.
    public func rules(appKey: String? = nil) throws(SQLiteError) -> [StoredRule] {
        let columns =
            "app_key, id, app_version, view_event, view_path, key_path, key_name, content, json, published_at FROM rules"
        let rows = try connection.withLock { c throws(SQLiteError) in
            let db = try opened(c)
            if let appKey {
                return try db.query("SELECT \(columns) WHERE app_key = ? ORDER BY position", [.text(appKey)])
            }
            return try db.query("SELECT \(columns) ORDER BY app_key, position")
        }
        return rows.map { r in
            StoredRule(
                appKey: r[0].text ?? "", id: r[1].text ?? "", appVersion: r[2].text ?? "", viewEvent: r[3].text ?? "",
                viewPath: r[4].text ?? "", keyPath: r[5].text ?? "", keyName: r[6].text ?? "", content: r[7].text,
                json: r[8].text ?? "{}", publishedAt: r[9].int ?? 0)
        }
    }

    /// Closes the connection (checkpointing the WAL into the file); later calls throw. Idempotent.
    public func close() {
        let db = connection.withLock { c -> SQLiteDatabase? in
            defer { c = nil }
            return c
        }
        _ = db  // Released here, outside the lock: its deinit closes the handle.
    }

    /// The open connection, or the error every call after `close()` gets.
    private func opened(_ c: SQLiteDatabase?) throws(SQLiteError) -> SQLiteDatabase {
        guard let c else { throw SQLiteError(code: SQLiteCode.misuse, message: "the database \(path) was closed", sql: "") }
        return c
    }

    /// Runs a read-only query for the summaries in `EventStore+Summary.swift`.
    func read(_ sql: String, _ parameters: [SQLiteValue] = []) throws(SQLiteError) -> [[SQLiteValue]] {
        try connection.withLock { c throws(SQLiteError) in
            try opened(c).query(sql, parameters)
        }
    }

    static func validate(_ raw: JSONValue) -> Result<TrackEvent, EventValidationError> {
        do throws(EventValidationError) { return .success(try TrackEvent(json: raw)) } catch { return .failure(error) }
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
