import EventStore
import StoreSQL
import SystemCalls

/// The ingest log, `PATH-ingest`: an SQLite database of its own beside the events', where an
/// append writes each batch as one record (`LoggedBatch`) and is acknowledged once that write is
/// durable. The batch's rows go into `events` afterwards, on the store's deriving thread, in the
/// transaction that also moves `ingest_applied` past it (SQLiteEventStore+Ingest.swift); records
/// at or before that position are deleted by later appends. So an append costs one row of a few
/// pages per batch, not an insert into the events' table and unique index per event, and a crash
/// between the two loses nothing: the next store to own the log stores what it holds past
/// `ingest_applied`.
///
/// One store owns the log at a time: the one holding the advisory lock on `PATH-ingest-lock`
/// (taken when a writable store opens; the kernel drops it when the process dies). Only the
/// owner appends; every other store (read-only ones, another process's) reads the log's last
/// position to know what its reads must wait for.
///
/// Used under its owner's lock only.
final class IngestLog {
    /// The log's path: the database's path and `suffix`.
    let path: String
    private let db: SQLiteDatabase
    /// Held for the log's life: the log is this store's.
    let lock: IngestLock

    static let suffix = "-ingest"
    /// The file whose lock says who owns the log.
    static let lockSuffix = "-ingest-lock"
    /// Every file the log keeps beside the database.
    static let suffixes = [suffix, suffix + "-wal", suffix + "-shm", lockSuffix]
    /// The log's own files (not the lock's, which keeps the acknowledged mark).
    static let logSuffixes = [suffix, suffix + "-wal", suffix + "-shm"]
    /// The layout this build writes (`PRAGMA user_version` of the log).
    static let layout = 1

    private init(path: String, db: sending SQLiteDatabase, lock: IngestLock) {
        self.path = path
        self.db = db
        self.lock = lock
    }

    /// How long opening waits for the log's owner to let go before it reads as another's.
    static let ownerHandover = Duration.seconds(2)

    /// Why the log of a database could not be opened: its file is damaged (SQLite cannot read
    /// it), or it is another database's.
    enum OpenFailure: Error {
        case damaged(SQLiteError)
        case other(StoreError)
    }

    /// Opens (creating) the log of the database at `database`, whose lock `lock` holds.
    /// `synchronous` is the log's `PRAGMA synchronous` (NORMAL: commits do not sync; the owner
    /// syncs the log's WAL itself, `SharedLogSync`).
    static func open(database: String, logID: String, synchronous: String, lock: IngestLock) throws(OpenFailure) -> IngestLog {
        let path = database + suffix
        let db: SQLiteDatabase
        var other: String?
        do throws(SQLiteError) {
            db = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            let version = try db.scalar("PRAGMA user_version", as: Int.self) ?? 0
            if version > layout {
                throw SQLiteError(
                    code: SQLiteCode.error,
                    message: "the ingest log has layout \(version), newer than the \(layout) this collector writes; use a newer autotrack-collector",
                    sql: "PRAGMA user_version")
            }
            let journal = try db.scalar("PRAGMA journal_mode = WAL", as: String.self)
            guard journal?.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLiteCode.error, message: "could not switch the ingest log to WAL (got \(journal ?? "nothing"))",
                    sql: "PRAGMA journal_mode = WAL")
            }
            try db.execute("PRAGMA synchronous = \(synchronous)")
            // Its pages are written once and freed once stored, never read again but at open:
            // SQLite's 2 MiB, not a writer's 32 MiB of cache (which would fill, never to be read).
            try db.execute("PRAGMA cache_size = -2048")
            try db.execute("PRAGMA wal_autocheckpoint = \(StoreTuning.checkpointPages)")
            try db.execute(
                """
                CREATE TABLE IF NOT EXISTS log (
                    position INTEGER PRIMARY KEY,
                    batch BLOB NOT NULL,
                    stored INTEGER NOT NULL,
                    duplicates INTEGER NOT NULL
                )
                """)
            try db.execute("CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), log_id TEXT NOT NULL)")
            // Only when it changes: a log opened to be checked is not written before the check.
            if version != layout { try db.execute("PRAGMA user_version = \(layout)") }
            // The database this log belongs to: an empty log is taken over by whichever opens it.
            let recorded = try db.scalar("SELECT log_id FROM meta", as: String.self)
            if recorded != logID {
                if let recorded, try db.scalar("SELECT COUNT(*) FROM log", as: Int.self) != 0 {
                    other = recorded  // another database's batches: refused below
                } else {
                    try db.run("INSERT INTO meta (id, log_id) VALUES (1, \(logID)) ON CONFLICT (id) DO UPDATE SET log_id = excluded.log_id")
                }
            }
        } catch {
            if error.isDamage { throw .damaged(error) }
            throw .other(error.storeError)
        }
        if let other {
            throw .other(
                StoreError(
                    .failed,
                    "the ingest log \(path) holds batches of another database (log id \(other), this database's is \(logID)): the database was replaced without its log; move \(path) and its -wal and -shm files away (they are that other database's), then start again"
                ))
        }
        return IngestLog(path: path, db: db, lock: lock)
    }

    /// Leaves the log's files as they are when it closes (no checkpoint into the file, its
    /// `-wal` not deleted): a damaged log is kept as it was found.
    func keepAsFound() { db.keepWriteAheadLogOnClose() }

    /// The highest position logged (0: none).
    func lastPosition() throws(SQLiteError) -> Int64 {
        try db.scalar(Self.lastPositionQuery, as: Int64.self) ?? 0
    }

    private static let lastPositionQuery: SQLQuery = "SELECT COALESCE(MAX(position), 0) AS position FROM log"

    /// Writes `records` (each a batch at its position, with the counts its `ACK` gives) and
    /// deletes every record at or before `applied` (stored in `events` since), in one
    /// transaction.
    func append(_ records: [(position: Int64, record: [UInt8], outcome: BatchOutcome)], deletingThrough applied: Int64) throws(SQLiteError) {
        try db.transaction { () throws(SQLiteError) in
            for r in records {
                try db.run(
                    Self.insert,
                    rows: [[.int(r.position), .blob(r.record), .int(Int64(r.outcome.stored)), .int(Int64(r.outcome.duplicates))]])
            }
            if applied > 0 { try db.run(Self.delete, rows: [[.int(applied)]]) }
        }
    }

    /// Deletes every record at or before `applied` (stored in `events`): a store closing
    /// cleanly leaves an empty log.
    func delete(through applied: Int64) throws(SQLiteError) {
        try db.run(Self.delete, rows: [[.int(applied)]])
    }

    private static let insert = HotStatement("INSERT INTO log (position, batch, stored, duplicates) VALUES (?, ?, ?, ?)")
    private static let delete = HotStatement("DELETE FROM log WHERE position <= ?")

    /// A record read back: its batch and arrival time, and the counts its `ACK` gave.
    typealias Record = (position: Int64, batch: EventBatch, receivedAt: Int64, stored: Int, duplicates: Int)

    /// Each record after `position`, in order, and the positions of records that cannot be read
    /// (damaged, or of another build), with why the first one cannot.
    func records(after position: Int64) throws(SQLiteError) -> (records: [Record], unreadable: [Int64], why: String?) {
        var records: [Record] = []
        var unreadable: [Int64] = []
        var why: String?
        try db.stream("SELECT position, batch, stored, duplicates FROM log WHERE position > \(position) ORDER BY position") { r in
            do throws(StoreError) {
                let (batch, receivedAt) = try LoggedBatch.decode(r.blob(1))
                records.append((r.int64(0), batch, receivedAt, Int(r.int64(2)), Int(r.int64(3))))
            } catch {
                unreadable.append(r.int64(0))
                if why == nil { why = error.message }
            }
            return true
        }
        return (records, unreadable, why)
    }

    /// True when a store owns the log of the database at `database` (one holds its lock); asked
    /// without taking the lock.
    static func isOwned(database: String) throws(StoreError) -> Bool {
        let lockPath = database + lockSuffix
        do throws(PosixError) {
            guard try Posix.fileIdentity(path: lockPath) != nil else { return false }
            let fd = try Posix.open(lockPath, O_RDONLY)
            defer { Posix.close(fd) }
            return try Posix.lockIsHeld(fd, path: lockPath)
        } catch {
            throw StoreError(.unavailable, "cannot tell whether a collector owns the ingest log \(lockPath): \(error)")
        }
    }

    /// The highest position in the log of the database at `database`, read without owning it;
    /// nil when it has no log (nothing was ever appended through one).
    static func lastPosition(database: String) throws(StoreError) -> Int64? {
        let path = database + suffix
        do throws(PosixError) {
            guard try Posix.fileIdentity(path: path) != nil else { return nil }
        } catch {
            throw StoreError(.unavailable, "cannot read the ingest log \(path): \(error)")
        }
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            guard try db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'log'", as: Int.self) == 1 else { return nil }
            return try db.scalar(lastPositionQuery, as: Int64.self)
        } catch where error.isDamage {
            throw StoreError(
                .damaged,
                "the ingest log \(path) cannot be read (SQLite: \(error.message)); start 'autotrack-collector serve --db \(database)': it checks what the log held against what it acknowledged, and says what it can recover")
        } catch {
            throw error.storeError
        }
    }
}
