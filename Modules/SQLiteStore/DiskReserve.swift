import EventStore
import Synchronization
import SystemCalls

/// What an append keeps free on the database's disk before it logs a batch: room to store, in
/// `events` and the rollups, every batch the log holds and this one, plus SQLite's own headroom.
/// An append that would leave less is refused (`unavailable`: the agent keeps the batch and sends
/// it again), so the store never acknowledges what it could not keep; the storing thread, which
/// retries after a failure, drains the log first as space returns, and appends resume once what
/// waits fits again.
final class DiskReserve: Sendable {
    /// The folder of the database (where `-ingest`, `-wal` and the rollups grow too).
    let folder: String
    /// The last free space read and when: read again once `maxAge` passed, or at every append
    /// while the disk is near its reserve.
    private let reading = Mutex<(free: UInt64, at: ContinuousClock.Instant?)>((0, nil))

    init(database path: String) {
        guard let slash = path.lastIndex(of: "/") else {
            folder = "."
            return
        }
        folder = slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Throws `unavailable` when logging `recordBytes` more, with `waitingEvents` not yet
    /// stored, would leave the disk below what storing them needs.
    func check(recordBytes: Int, waitingEvents: Int, database: String) throws(StoreError) {
        let need = StoreTuning.diskHeadroom + UInt64(waitingEvents + 1) * StoreTuning.diskBytesPerWaitingEvent + 2 * UInt64(recordBytes)
        let now = ContinuousClock.now
        var free = reading.withLock { r -> UInt64? in
            guard let at = r.at, now - at < StoreTuning.diskReadingMaxAge, r.free > 4 * need else { return nil }
            return r.free
        }
        if free == nil {
            do throws(PosixError) {
                let read = try Posix.freeBytes(onFilesystemOf: folder)
                reading.withLock { $0 = (read, now) }
                free = read
            } catch {
                return  // a filesystem that cannot say: SQLite's own errors still stop a write that fails
            }
        }
        guard let free, free < need else { return }
        throw StoreError(
            .unavailable,
            "the disk of \(database) has \(Self.mebibytes(free)) free, less than the \(Self.mebibytes(need)) needed to store the \(waitingEvents) acknowledged events waiting in its ingest log and this batch; this batch is not acknowledged (its sender keeps it and sends it again): free space on \(folder), and the collector stores what waits first, then takes batches again"
        )
    }

    private static func mebibytes(_ bytes: UInt64) -> String {
        let tenths = bytes * 10 / (1 << 20)
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
