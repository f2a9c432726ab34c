import EventStore
import StoreSQL
import Synchronization
import SystemCalls

/// The ingest log, `PATH-ingest`: a file of its own beside the database, where an append writes
/// each batch as one record (`IngestLogFormat`, its batch a `LoggedBatch`) and is acknowledged
/// once that write is durable. The batch's rows go into `events` afterwards (IngestJournal.swift),
/// in the transaction that also moves `ingest_applied` past it. So an append costs one write of
/// its batch as it arrived, not an insert into the events' table and unique index per event, and
/// a crash between the two loses nothing: the next store to own the log stores what it holds
/// past `ingest_applied`.
///
/// Records stored in `events` stay in the file until it passes `StoreTuning.logCompactBytes`
/// with at least half of it stored: then the records not yet stored are copied into a new file,
/// synced, and renamed over the log (a crash leaves the old file or the new one, each holding
/// every record not yet stored). A store closing cleanly leaves only the header.
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
    /// The open file, which `SharedLogSync` syncs outside the owner's lock.
    let file: IngestLogFile
    /// Held for the log's life: the log is this store's.
    let lock: IngestLock
    private let logID: String
    /// The records in the file, in position order, with where each starts and ends.
    private var held: [Held]
    /// `held[first...]` are the records not yet known to be stored.
    private var first = 0
    /// Where the next record goes.
    private var end: UInt64
    /// Bytes past `end` that are no record (a write a crash cut short): cut off before the next.
    private var tornTail: Bool
    private var last: Int64
    /// `StoreTuning.logCompactBytes` (smaller in tests of the compaction).
    private let compactBytes: UInt64

    private struct Held {
        let position: Int64
        var start: UInt64
        var end: UInt64
        let stored: Int
        let duplicates: Int
    }

    static let suffix = "-ingest"
    /// The file whose lock says who owns the log.
    static let lockSuffix = "-ingest-lock"
    /// The files of a log of layout 1 (an SQLite database with its write-ahead log), which a
    /// store converts and removes when it opens one.
    static let layout1Suffixes = [suffix + "-wal", suffix + "-shm"]
    /// Where a compaction (or a conversion) writes the new file before renaming it over the log.
    static let newFileSuffix = suffix + ".new"
    /// Every file the log may keep beside the database.
    static let suffixes = [suffix, lockSuffix, newFileSuffix] + layout1Suffixes

    /// How long opening waits for the log's owner to let go before it reads as another's.
    static let ownerHandover = Duration.seconds(2)

    private init(path: String, file: IngestLogFile, lock: IngestLock, logID: String, scan: Scan, compactBytes: UInt64) {
        self.compactBytes = compactBytes
        self.path = path
        self.file = file
        self.lock = lock
        self.logID = logID
        held = scan.records
        end = scan.end
        tornTail = scan.end < scan.size
        last = scan.records.last?.position ?? 0
    }

    /// Why the log of a database could not be opened: it is damaged (no log's header), or it is
    /// another database's, or it cannot be read.
    enum OpenFailure: Error {
        case damaged(String)
        case other(StoreError)
    }

    /// Opens (creating) the log of the database at `database`, whose lock `lock` holds. A log of
    /// layout 1 is converted first.
    static func open(
        database: String, logID: String, lock: IngestLock, compactBytes: UInt64 = StoreTuning.logCompactBytes
    ) throws(OpenFailure) -> IngestLog {
        let path = database + suffix
        do {
            return try openChecked(database: database, path: path, logID: logID, lock: lock, compactBytes: compactBytes)
        } catch let failure as OpenFailure {
            throw failure
        } catch let error as StoreError {
            throw .other(error)
        } catch {
            throw .other(StoreError(.unavailable, "cannot open the ingest log \(path): \(error)"))
        }
    }

    private static func openChecked(database: String, path: String, logID: String, lock: IngestLock, compactBytes: UInt64) throws -> IngestLog {
        if try Posix.fileIdentity(path: database + newFileSuffix) != nil { try Posix.unlink(database + newFileSuffix) }
        if try Posix.fileIdentity(path: path) != nil, try isLayout1(path) {
            try IngestLogLayout1.convert(database: database, logID: logID)
        }
        for legacy in layout1Suffixes where try Posix.fileIdentity(path: database + legacy) != nil {
            try Posix.unlink(database + legacy)
        }
        let created = try Posix.fileIdentity(path: path) == nil
        let fd = try Posix.open(path, O_RDWR | O_CREAT)
        do {
            let empty = created ? true : try Posix.fileSize(fd, path: path) == 0
            if empty {
                try Posix.write(fd, IngestLogFormat.header(logID: logID), at: 0, path: path)
                try Posix.fdatasync(fd, path: path)
                try Posix.syncDirectory(folder(of: path))
            }
            guard let header = IngestLogFormat.readHeader(try Posix.read(fd, count: IngestLogFormat.headerSize, at: 0, path: path)) else {
                throw OpenFailure.damaged("its first \(IngestLogFormat.headerSize) bytes are not an ingest log's header")
            }
            if header.layout > IngestLogFormat.layout {
                throw OpenFailure.other(
                    StoreError(
                        .failed,
                        "the ingest log \(path) has layout \(header.layout), newer than the \(IngestLogFormat.layout) this collector writes; use a newer autotrack-collector"
                    ))
            }
            let scan = try Self.scan(fd, path: path, verify: true)
            if header.logID != logID {
                guard scan.records.isEmpty else { throw OpenFailure.other(anotherDatabasesLog(path, recorded: header.logID, logID: logID)) }
                // An empty log is taken over by whichever database opens it.
                try Posix.write(fd, IngestLogFormat.header(logID: logID), at: 0, path: path)
                try Posix.fdatasync(fd, path: path)
            }
            return IngestLog(path: path, file: IngestLogFile(path: path, fd: fd), lock: lock, logID: logID, scan: scan, compactBytes: compactBytes)
        } catch {
            Posix.close(fd)
            throw error
        }
    }

    /// The refusal of a log that holds batches of the database whose log id is `recorded`;
    /// `files` names what to move away when it is more than the log's file.
    static func anotherDatabasesLog(_ path: String, recorded: String, logID: String, files: String? = nil) -> StoreError {
        StoreError(
            .failed,
            "the ingest log \(path) holds batches of another database (log id \(recorded), this database's is \(logID)): the database was replaced without its log; move \(files ?? path) away (\(files == nil ? "it is" : "they are") that other database's), then start again"
        )
    }

    /// The highest position logged (0: none).
    func lastPosition() -> Int64 { last }

    /// Writes `records` (each a batch at its position, with the counts its `ACK` gives) in one
    /// write after the last; records at or before `applied` (stored in `events` since) may go.
    func append(_ records: [(position: Int64, record: [UInt8], outcome: BatchOutcome)], deletingThrough applied: Int64) throws(StoreError) {
        forget(through: applied)
        do throws(PosixError) {
            if end >= compactBytes, firstHeldStart - UInt64(IngestLogFormat.headerSize) >= end / 2 { try compact() }
            if tornTail {
                try Posix.ftruncate(file.descriptor, Int(end), path: path)
                tornTail = false
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(records.reduce(0) { $0 + $1.record.count + IngestLogFormat.recordHeaderSize })
            var added: [Held] = []
            for r in records {
                let start = end + UInt64(bytes.count)
                IngestLogFormat.appendRecord(
                    position: r.position, stored: r.outcome.stored, duplicates: r.outcome.duplicates, payload: r.record, to: &bytes)
                added.append(Held(position: r.position, start: start, end: end + UInt64(bytes.count), stored: r.outcome.stored, duplicates: r.outcome.duplicates))
            }
            do throws(PosixError) {
                try Posix.write(file.descriptor, bytes, at: end, path: path)
            } catch {
                tornTail = true  // part of it may be there: cut off before the next write
                throw error
            }
            end += UInt64(bytes.count)
            held += added
            last = records.last?.position ?? last
        } catch {
            throw StoreError(.unavailable, "could not write the ingest log \(path): \(error)")
        }
    }

    /// Lets the records at or before `applied` (stored in `events`) go: a store closing cleanly
    /// leaves only the header.
    func delete(through applied: Int64) throws(StoreError) {
        forget(through: applied)
        guard first == held.count, end > UInt64(IngestLogFormat.headerSize) else { return }
        do throws(PosixError) {
            try Posix.ftruncate(file.descriptor, IngestLogFormat.headerSize, path: path)
            try Posix.fdatasync(file.descriptor, path: path)
        } catch {
            throw StoreError(.unavailable, "could not empty the ingest log \(path): \(error)")
        }
        held = []
        first = 0
        end = UInt64(IngestLogFormat.headerSize)
        tornTail = false
    }

    /// Closes the file (a sync asked for later opens it again).
    func close() { file.close() }

    private func forget(through applied: Int64) {
        while first < held.count, held[first].position <= applied { first += 1 }
        if first > 4096, first * 2 > held.count {
            held.removeFirst(first)
            first = 0
        }
    }

    private var firstHeldStart: UInt64 { first < held.count ? held[first].start : end }

    /// Copies the records not yet stored into a new file, syncs it and renames it over the log.
    /// Everything written before is durable once it returns (the new file was synced).
    private func compact() throws(PosixError) {
        let from = firstHeldStart
        let newPath = path + ".new"  // the database's path and `newFileSuffix`
        let out = try Posix.open(newPath, O_RDWR | O_CREAT | O_TRUNC)
        do throws(PosixError) {
            try Posix.write(out, IngestLogFormat.header(logID: logID), at: 0, path: newPath)
            var offset = from
            let chunk = 4 << 20
            while offset < end {
                let bytes = try Posix.read(file.descriptor, count: min(chunk, Int(end - offset)), at: offset, path: path)
                guard !bytes.isEmpty else { throw PosixError("pread(\(path)): the log ended at \(offset), before \(end)", errno: EIO) }
                try Posix.write(out, bytes, at: offset - from + UInt64(IngestLogFormat.headerSize), path: newPath)
                offset += UInt64(bytes.count)
            }
            try Posix.fdatasync(out, path: newPath)
            try Posix.rename(newPath, path)
            try Posix.syncDirectory(Self.folder(of: path))
        } catch {
            Posix.close(out)
            try? Posix.unlink(newPath)
            throw error
        }
        file.replace(with: out)
        let shift = from - UInt64(IngestLogFormat.headerSize)
        held.removeFirst(first)
        first = 0
        for i in held.indices {
            held[i].start -= shift
            held[i].end -= shift
        }
        end -= shift
        tornTail = false
    }

    /// A record read back: its batch and arrival time, and the counts its `ACK` gave.
    typealias Record = (position: Int64, batch: EventBatch, receivedAt: Int64, stored: Int, duplicates: Int)

    /// Each record after `position`, in order, and the positions of records that cannot be read
    /// (whole, but not a batch this build reads), with why the first one cannot.
    func records(after position: Int64) throws(StoreError) -> (records: [Record], unreadable: [Int64], why: String?) {
        var records: [Record] = []
        var unreadable: [Int64] = []
        var why: String?
        for h in held[first...] where h.position > position {
            let start = h.start + UInt64(IngestLogFormat.recordHeaderSize)
            let payload: [UInt8]
            do throws(PosixError) {
                payload = try Posix.read(file.descriptor, count: Int(h.end - start), at: start, path: path)
            } catch {
                throw StoreError(.unavailable, "cannot read the ingest log \(path): \(error)")
            }
            switch Self.decode(payload) {
            case .success(let d): records.append((h.position, d.batch, d.receivedAt, h.stored, h.duplicates))
            case .failure(let error):
                unreadable.append(h.position)
                if why == nil { why = error.message }
            }
        }
        return (records, unreadable, why)
    }

    private static func decode(_ payload: [UInt8]) -> Result<(batch: EventBatch, receivedAt: Int64), StoreError> {
        payload.withUnsafeBytes { raw in Result { () throws(StoreError) in try LoggedBatch.decode(raw) } }
    }

    /// What a read of the file from its header on found: its whole records, where the last
    /// ends, and the file's size (larger when a write was cut short, or the rest is damaged).
    private struct Scan {
        var records: [Held] = []
        var end = UInt64(IngestLogFormat.headerSize)
        var size: UInt64 = 0
    }

    /// Reads the records from the header on until the first that is not whole (`verify`: its
    /// checksum checked too) or does not follow the one before.
    private static func scan(_ fd: Int32, path: String, verify: Bool) throws(PosixError) -> Scan {
        var scan = Scan()
        scan.size = try Posix.fileSize(fd, path: path)
        var offset = UInt64(IngestLogFormat.headerSize)
        var previous: Int64?
        while offset + UInt64(IngestLogFormat.recordHeaderSize) <= scan.size {
            let head = try Posix.read(fd, count: IngestLogFormat.recordHeaderSize, at: offset, path: path)
            guard let header = IngestLogFormat.RecordHeader(head[...]), previous.map({ header.position == $0 + 1 }) ?? true else { break }
            let recordEnd = offset + UInt64(IngestLogFormat.recordHeaderSize) + UInt64(header.payloadLength)
            guard recordEnd <= scan.size else { break }
            if verify {
                let payload = try Posix.read(fd, count: header.payloadLength, at: offset + UInt64(IngestLogFormat.recordHeaderSize), path: path)
                guard payload.withUnsafeBytes({ header.holds(fields: head[4..<24], payload: $0) }) else { break }
            }
            scan.records.append(Held(position: header.position, start: offset, end: recordEnd, stored: header.stored, duplicates: header.duplicates))
            previous = header.position
            offset = recordEnd
        }
        scan.end = offset
        return scan
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
        do {
            guard try Posix.fileIdentity(path: path) != nil else { return nil }
            if try isLayout1(path) { return try IngestLogLayout1.lastPosition(path: path) }
            let fd = try Posix.open(path, O_RDONLY)
            defer { Posix.close(fd) }
            let head = try Posix.read(fd, count: IngestLogFormat.headerSize, at: 0, path: path)
            if head.isEmpty { return 0 }  // being made: the header comes first
            guard IngestLogFormat.readHeader(head) != nil else {
                throw StoreError(
                    .damaged,
                    "the ingest log \(path) cannot be read (its first \(IngestLogFormat.headerSize) bytes are not an ingest log's header); start 'autotrack-collector serve --db \(database)': it checks what the log held against what it acknowledged, and says what it can recover"
                )
            }
            return try scan(fd, path: path, verify: false).records.last?.position ?? 0
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "cannot read the ingest log \(path): \(error)")
        }
    }

    /// Whether the file at `path` is a log of layout 1 (an SQLite database).
    private static func isLayout1(_ path: String) throws(PosixError) -> Bool {
        let fd = try Posix.open(path, O_RDONLY)
        defer { Posix.close(fd) }
        return try Posix.read(fd, count: 16, at: 0, path: path) == Array("SQLite format 3\0".utf8)
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// The ingest log's open file as its syncs see it: `SharedLogSync` syncs it outside the owner's
/// lock while the owner writes it; a compaction replaces the descriptor (under this lock, so no
/// sync runs on one being closed).
final class IngestLogFile: Sendable {
    let path: String
    /// The descriptor (-1 once closed).
    private let state: Mutex<Int32>

    init(path: String, fd: Int32) {
        self.path = path
        state = Mutex(fd)
    }

    /// A log dropped without `close` (an open refused over its damage) leaks no descriptor.
    deinit { close() }

    /// The descriptor the owner writes through; only the owner replaces it, so it stays valid
    /// for the owner's call.
    var descriptor: Int32 { state.withLock { $0 } }

    /// Makes every write to the log so far durable (`fdatasync`); after `close`, through a
    /// descriptor opened for it.
    func sync() throws(StoreError) {
        let synced: Result<Void, PosixError> = state.withLock { fd in
            Result { () throws(PosixError) in
                if fd >= 0 {
                    try Posix.fdatasync(fd, path: path)
                } else {
                    let reopened = try Posix.open(path, O_RDONLY)
                    let outcome = Result { () throws(PosixError) in try Posix.fdatasync(reopened, path: path) }
                    Posix.close(reopened)
                    try outcome.get()
                }
            }
        }
        if case .failure(let error) = synced {
            throw StoreError(
                .unavailable,
                "could not make the ingest log \(path) durable (\(error)); the batches written since its last sync are not acknowledged, and this store takes no more: restart the collector (it stores what the log holds when it opens the database)"
            )
        }
    }

    func replace(with fd: Int32) {
        state.withLock { current in
            if current >= 0 { Posix.close(current) }
            current = fd
        }
    }

    /// Idempotent.
    func close() {
        state.withLock { fd in
            if fd >= 0 { Posix.close(fd) }
            fd = -1
        }
    }
}
