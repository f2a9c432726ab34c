#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a command `Posix.runShellCommand` started ended.
package enum ShellCommandOutcome: Sendable, Equatable {
    /// It exited with this status, or 128 + the signal that ended it (as a shell reports it).
    case exited(Int32)
    /// It was still running at the timeout; its process group was killed (SIGKILL).
    case timedOut
}

extension Posix {
    /// Runs `command` through `/bin/sh -c` with `input` on its standard input (an unlinked
    /// temporary file, so a command that never reads cannot block us), this process's environment,
    /// standard output and error, no signal blocked and SIGPIPE, SIGINT and SIGTERM at their
    /// default actions. The shell leads a process group of its own; at `timeout` the whole group
    /// is killed. Blocks the calling thread (polling every 10 ms): only on a thread of the
    /// caller's own, never a task of the Swift concurrency pool.
    package static func runShellCommand(_ command: String, input: [UInt8], timeout: Duration) throws(PosixError) -> ShellCommandOutcome {
        let directory = environmentValue("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/autotrack-input-XXXXXX".utf8CString)
        let fd = try check("mkstemp(\(directory))") { template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = String(cString: template)
        try unlink(path)
        try writeAll(fd, input, path: path)
        _ = try check("lseek(\(path))") { lseek(fd, 0, SEEK_SET) }

        let pid = try spawn(
            "/bin/sh", arguments: ["sh", "-c", command], environment: nil, defaultSignals: [SIGPIPE, SIGINT, SIGTERM],
            standardInput: fd, newProcessGroup: true)

        return try waitForExit(pid, until: ContinuousClock.now + timeout, killing: -pid, every: .milliseconds(10))
    }
}
