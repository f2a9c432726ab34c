import EventStore
import Synchronization
import SystemCalls

/// The advisory lock on `PATH-ingest-lock` that makes one store the owner of a database's
/// ingest log (taken when a writable store opens; the kernel drops it when the process dies),
/// and the acknowledged mark the same file keeps (`IngestMark`). The descriptor lives as long
/// as this object.
final class IngestLock: Sendable {
    let path: String
    /// The descriptor (-1 once released), the mark last written, and whether a sync is owed for it.
    private let mark: Mutex<(fd: Int32, written: IngestMark?, synced: Bool)>

    private init(path: String, fd: Int32) {
        self.path = path
        mark = Mutex((fd, IngestMark.read(fd, path: path), true))
    }

    deinit { release() }

    /// Syncs the mark and lets go of the lock (the store closed): another store may own the log.
    /// Idempotent.
    func release() {
        syncMark()
        mark.withLock { m in
            if m.fd >= 0 { Posix.close(m.fd) }
            m.fd = -1
        }
    }

    /// Takes the lock of the database at `database`, waiting up to `handover` for a store of
    /// this process letting go of it; nil when another store holds it still.
    static func acquire(database: String, handover: Duration) throws(StoreError) -> IngestLock? {
        let path = database + IngestLog.lockSuffix
        let fd: Int32
        do throws(PosixError) {
            fd = try Posix.open(path, O_RDWR | O_CREAT)
            let clock = ContinuousClock()
            let deadline = clock.now + handover
            while !(try Posix.tryLock(fd, path: path)) {
                if clock.now > deadline {
                    Posix.close(fd)
                    return nil
                }
                Posix.sleep(.milliseconds(10))
            }
        } catch {
            throw StoreError(
                .unavailable,
                "cannot lock the ingest log \(path) (\(error)); the folder of the database must be writable by the collector")
        }
        return IngestLock(path: path, fd: fd)
    }

    /// The acknowledged mark as the lock file holds it (read when the lock was taken, or last written).
    var acknowledged: IngestMark? { mark.withLock { $0.written } }

    /// Moves the mark to `position` of the log `logID` once that batch is durable, before its
    /// `ACK`; a lower position than the mark's (a thread that lost the race) changes nothing.
    func acknowledge(through position: Int64, logID: String, at: Int64) throws(StoreError) {
        try mark.withLock { (m: inout (fd: Int32, written: IngestMark?, synced: Bool)) throws(StoreError) in
            if let written = m.written, written.logID == logID, written.position >= position { return }
            guard m.fd >= 0 else { throw StoreError(.closed, "the ingest log's lock \(path) was released: the store closed") }
            let next = IngestMark(logID: logID, position: position, at: at)
            do throws(PosixError) {
                try next.write(m.fd, path: path)
            } catch {
                throw StoreError(
                    .unavailable,
                    "could not record the acknowledged batches in \(path) (\(error)); the batch is not acknowledged: check the disk")
            }
            m.written = next
            m.synced = false
        }
    }

    /// Writes `next` whatever the mark was, and makes it durable: a log made anew
    /// (`IngestRecovery.setAside`) starts its positions again after what the database stores.
    func reset(to next: IngestMark) throws(StoreError) {
        try mark.withLock { (m: inout (fd: Int32, written: IngestMark?, synced: Bool)) throws(StoreError) in
            do throws(PosixError) {
                try next.write(m.fd, path: path)
                try Posix.fdatasync(m.fd, path: path)
            } catch {
                throw StoreError(.unavailable, "could not write the acknowledged mark to \(path) (\(error)); check the disk")
            }
            m.written = next
            m.synced = true
        }
    }

    /// Makes the last mark written durable, when it is not yet (the storing thread, once a round,
    /// and a clean close).
    func syncMark() {
        // Synced under the lock: the descriptor stays open meanwhile (one small sync a round).
        mark.withLock { m in
            guard !m.synced, m.fd >= 0 else { return }
            m.synced = true
            try? Posix.fdatasync(m.fd, path: path)
        }
    }
}
