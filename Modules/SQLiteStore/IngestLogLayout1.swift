import EventStore
import StoreSQL
import SystemCalls

/// The ingest log as collectors before layout 2 wrote it: an SQLite database (`PATH-ingest`,
/// with its `-wal` and `-shm`), one row per batch in a table `log (position, batch, stored,
/// duplicates)` and the log id in `meta`. A store that finds one converts it (`convert`): the
/// records it holds are written into a log of layout 2, which is synced and renamed over it.
enum IngestLogLayout1 {
    /// Converts the log of layout 1 of the database at `database` into layout 2, in place. A
    /// crash meanwhile leaves the old log (the new one is renamed over it once synced).
    static func convert(database: String, logID: String) throws {
        let path = database + IngestLog.suffix
        let (rows, recorded) = try readChecked(path)
        if let recorded, recorded != logID, !rows.isEmpty {
            throw IngestLog.OpenFailure.other(
                IngestLog.anotherDatabasesLog(path, recorded: recorded, logID: logID, files: "\(path) and its -wal and -shm files"))
        }
        var bytes = IngestLogFormat.header(logID: logID)
        for row in rows {
            IngestLogFormat.appendRecord(position: row.position, stored: row.stored, duplicates: row.duplicates, payload: row.batch, to: &bytes)
        }
        let newPath = database + IngestLog.newFileSuffix
        let fd = try Posix.open(newPath, O_RDWR | O_CREAT | O_TRUNC)
        defer { Posix.close(fd) }
        try Posix.write(fd, bytes, at: 0, path: newPath)
        try Posix.fdatasync(fd, path: newPath)
        try Posix.rename(newPath, path)
        for suffix in IngestLog.layout1Suffixes where try Posix.fileIdentity(path: database + suffix) != nil {
            try Posix.unlink(database + suffix)
        }
        try Posix.syncDirectory(IngestLog.folder(of: path))
    }

    typealias Row = (position: Int64, batch: [UInt8], stored: Int, duplicates: Int)

    /// `read`, its damage said as such.
    private static func readChecked(_ path: String) throws -> (rows: [Row], logID: String?) {
        do throws(SQLiteError) {
            return try read(path)
        } catch {
            if error.isDamage { throw IngestLog.OpenFailure.damaged("an ingest log of layout 1 that SQLite cannot read: \(error.message)") }
            throw error
        }
    }

    /// Every record of the log at `path`, and the log id it names.
    private static func read(_ path: String) throws(SQLiteError) -> (rows: [Row], logID: String?) {
        let db = try SQLiteDatabase(path: path, mode: .readWriteExisting)
        var rows: [Row] = []
        if try db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'log'", as: Int.self) == 1 {
            try db.stream("SELECT position, batch, stored, duplicates FROM log ORDER BY position") { r in
                rows.append((r.int64(0), Array(r.blob(1)), Int(r.int64(2)), Int(r.int64(3))))
                return true
            }
        }
        var logID: String?
        if try db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'", as: Int.self) == 1 {
            logID = try db.scalar("SELECT log_id FROM meta", as: String.self)
        }
        return (rows, logID)
    }

    /// The highest position in a log of layout 1, read without owning it.
    static func lastPosition(path: String) throws(StoreError) -> Int64? {
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            guard try db.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'log'", as: Int.self) == 1 else { return nil }
            return try db.scalar("SELECT COALESCE(MAX(position), 0) AS position FROM log", as: Int64.self)
        } catch where error.isDamage {
            throw StoreError(
                .damaged,
                "the ingest log \(path) cannot be read (SQLite: \(error.message)); start 'autotrack-collector serve --db \(String(path.dropLast(IngestLog.suffix.count)))': it checks what the log held against what it acknowledged, and says what it can recover"
            )
        } catch {
            throw error.storeError
        }
    }
}
