#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Every system call the reporters make, in one place: EINTR is retried, failures become `ReporterError`.
package enum Posix {
    /// Opens `path` for appending, creating it (mode 0644) when absent.
    package static func openForAppend(_ path: String) throws(ReporterError) -> Int32 {
        while true {
            let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            let e = errno
            if e == EINTR { continue }
            throw ReporterError(code: .openFailed, target: path, errno: e)
        }
    }

    /// Writes all of `bytes`, looping over short writes.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], target: String) throws(ReporterError) {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n >= 0 {
                    offset += n
                    continue
                }
                let e = errno
                if e == EINTR { continue }
                failure = e
                return
            }
        }
        if failure != 0 { throw ReporterError(code: .writeFailed, target: target, errno: failure) }
    }

    /// Asks the kernel to put the file's data on disk.
    package static func sync(_ fd: Int32, target: String) throws(ReporterError) {
        while fsync(fd) != 0 {
            let e = errno
            if e == EINTR { continue }
            // Pipes and terminals cannot be synced; that is not a failure of the reporter.
            if e == EINVAL || e == EROFS { return }
            throw ReporterError(code: .syncFailed, target: target, errno: e)
        }
    }

    package static func closeDescriptor(_ fd: Int32) {
        _ = close(fd)
    }

    /// The C library's text for an errno value.
    /// Writes `text` to standard error, ignoring failure: diagnostics must never fail the app.
    package static func writeToStandardError(_ text: String) {
        try? writeAll(2, Array(text.utf8), target: "standard error")
    }

    package static func describe(_ e: Int32) -> String {
        guard let p = strerror(e) else { return "error" }
        return String(cString: p)
    }
}
