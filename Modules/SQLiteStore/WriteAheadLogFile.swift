import EventStore
import Synchronization
import SystemCalls

/// The events' write-ahead log (`PATH-wal`) as `SharedLogSync` syncs it: one descriptor of our
/// own, kept open for the store's life. SQLite writes the log through its own descriptor; a
/// sync through any descriptor of the file makes every write before it durable. Closing our
/// descriptor drops none of SQLite's locks (those are on the database and `-shm` files).
final class WriteAheadLogFile: Sendable {
    let path: String
    /// The open log and which file it is; nil before the first sync, after close, or when no log
    /// file exists.
    private let open = Mutex<(fd: Int32, identity: FileIdentity)?>(nil)

    init(database: String) {
        path = database + "-wal"
    }

    /// Makes every write to the log so far durable (`fdatasync`). Opens the log first when it
    /// has not been opened or the path now names another file (SQLite deletes the log when its
    /// last connection closes, and a later one creates it again): then also syncs the folder,
    /// so the new file's name survives too. Without a log at the path there is nothing to sync:
    /// the last connection checkpointed it into the database (with a sync) before deleting it.
    func sync() throws(StoreError) {
        do throws(PosixError) {
            try open.withLock { (file: inout sending (fd: Int32, identity: FileIdentity)?) throws(PosixError) in
                let now = try Posix.fileIdentity(path: path)
                if let current = file, current.identity != now {
                    Posix.close(current.fd)
                    file = nil
                }
                guard now != nil else { return }
                if file == nil {
                    let fd = try Posix.open(path, O_RDONLY)
                    let identity = try Posix.fileIdentity(fd, path: path)
                    file = (fd, identity)  // the file opened, should the path have changed since
                    try Posix.syncDirectory(folder)
                }
                try Posix.fdatasync(file!.fd, path: path)
            }
        } catch {
            throw StoreError(
                .unavailable,
                "could not make the write-ahead log \(path) durable (\(error)); the batches committed since its last sync are not acknowledged, and this store takes no more: restart the collector (SQLite recovers the log when it opens the database)"
            )
        }
    }

    /// Closes the descriptor; a later `sync` opens the log again. Idempotent.
    func close() {
        open.withLock { file in
            if let current = file { Posix.close(current.fd) }
            file = nil
        }
    }

    private var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
