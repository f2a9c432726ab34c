public import EventModel
import Synchronization
import SystemCalls

/// Appends each event to a file as one line of wire-form JSON (JSON Lines), one write per event.
///
/// Writing each line as it comes, rather than buffering, means a crash loses at most the
/// event being written; the reporting thread absorbs the cost, never the app's thread.
public final class JSONLinesFileReporter: Reporter {
    public let path: String
    /// The open descriptor, -1 once closed.
    private let descriptor: Mutex<Int32>

    /// Opens (creating or appending to) the file at `path`.
    public init(path: String) throws(ReporterError) {
        self.path = path
        do throws(PosixError) {
            descriptor = Mutex(try Posix.open(path, O_WRONLY | O_CREAT | O_APPEND))
        } catch {
            throw ReporterError(code: .openFailed, target: path, error)
        }
    }

    public func report(_ event: TrackEvent) throws(ReporterError) {
        var line = event.json.jsonBytes
        line.append(UInt8(ascii: "\n"))
        try descriptor.withLock { (fd: inout Int32) throws(ReporterError) in
            guard fd >= 0 else { throw ReporterError(code: .closed, target: path) }
            do throws(PosixError) {
                try Posix.writeAll(fd, line, path: path)
            } catch {
                throw ReporterError(code: .writeFailed, target: path, error)
            }
        }
    }

    public func flush() throws(ReporterError) {
        try descriptor.withLock { (fd: inout Int32) throws(ReporterError) in
            guard fd >= 0 else { return }
            do throws(PosixError) {
                try Posix.fsync(fd, path: path)
            } catch where error.errno == EINVAL || error.errno == EROFS {
                // Pipes and terminals cannot be synced; that is not a failure of the reporter.
            } catch {
                throw ReporterError(code: .syncFailed, target: path, error)
            }
        }
    }

    /// Closes the file; later reports throw `closed`.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { Posix.close(fd) }
            fd = -1
        }
    }

    deinit { close() }
}
