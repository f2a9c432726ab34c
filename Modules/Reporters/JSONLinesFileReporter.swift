import EventModel
import Synchronization

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
        descriptor = Mutex(try Posix.openForAppend(path))
    }

    public func report(_ event: TrackEvent) throws(ReporterError) {
        var line = event.json.jsonBytes
        line.append(UInt8(ascii: "\n"))
        try descriptor.withLock { (fd: inout Int32) throws(ReporterError) in
            guard fd >= 0 else { throw ReporterError(code: .closed, target: path) }
            try Posix.writeAll(fd, line, target: path)
        }
    }

    public func flush() throws(ReporterError) {
        try descriptor.withLock { (fd: inout Int32) throws(ReporterError) in
            guard fd >= 0 else { return }
            try Posix.sync(fd, target: path)
        }
    }

    /// Closes the file; later reports throw `closed`.
    public func close() {
        descriptor.withLock { fd in
            if fd >= 0 { Posix.closeDescriptor(fd) }
            fd = -1
        }
    }

    deinit { close() }
}
