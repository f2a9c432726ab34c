import EventStore
import Synchronization
import SystemCalls

/// The events' write-ahead log (`PATH-wal`) as `SharedLogSync` syncs it: one descriptor of our
/// own, kept open for the store's life. SQLite writes the log through its own descriptor; a
/// sync through any descriptor of the file makes every write before it durable. Closing our
/// descriptor drops none of SQLite's locks (those are on the database and `-shm` files).
final class WriteAheadLogFile: Sendable {
    let path: String
    private let state = Mutex(State())

    private struct State {
        /// The open log and which file it is; nil before the first sync, after close, or when no
        /// log file exists.
        var file: (fd: Int32, identity: FileIdentity)?
        /// Set by `close`: a sync still asked for then (a group committed before the store
        /// closed) opens the log, syncs it and closes it again, leaking no descriptor.
        var closed = false
    }

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
            try state.withLock { (s: inout sending State) throws(PosixError) in
                defer {
                    if s.closed, let open = s.file {
                        Posix.close(open.fd)
                        s.file = nil
                    }
                }
                let now = try Posix.fileIdentity(path: path)
                if let current = s.file, current.identity != now {
                    Posix.close(current.fd)
                    s.file = nil
                }
                guard now != nil else { return }
                if s.file == nil {
                    let fd = try Posix.open(path, O_RDONLY)
                    let identity = try Posix.fileIdentity(fd, path: path)
                    s.file = (fd, identity)  // the file opened, should the path have changed since
                    try Posix.syncDirectory(folder)
                }
                try Posix.fdatasync(s.file!.fd, path: path)
            }
        } catch {
            throw StoreError(
                .unavailable,
                "could not make the write-ahead log \(path) durable (\(error)); the batches committed since its last sync are not acknowledged, and this store takes no more: restart the collector (SQLite recovers the log when it opens the database)"
            )
        }
    }

    /// Closes the descriptor (the store closed); a later `sync` still syncs the log, through a
    /// descriptor it closes again. Idempotent.
    func close() {
        state.withLock { s in
            if let open = s.file { Posix.close(open.fd) }
            s.file = nil
            s.closed = true
        }
    }

    private var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
