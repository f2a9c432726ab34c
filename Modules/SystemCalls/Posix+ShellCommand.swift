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
        let directory = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(directory)/autotrack-input-XXXXXX".utf8CString)
        let fd = try check("mkstemp(\(directory))") { template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } }
        defer { close(fd) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let path = String(cString: template)
        try unlink(path)
        try writeAll(fd, input, path: path)
        _ = try check("lseek(\(path))") { lseek(fd, 0, SEEK_SET) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fd, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGPIPE, SIGINT, SIGTERM] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let words: [String] = ["sh", "-c", command]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        // posix_spawn returns the error number instead of setting errno.
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        guard rc == 0 else { throw PosixError("posix_spawn(/bin/sh -c \(command))", errno: rc) }

        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while true {
            if try check("waitpid(\(pid))", { waitpid(pid, &status, WNOHANG) }) == pid { break }
            if ContinuousClock.now >= deadline {
                kill(-pid, SIGKILL)
                _ = try check("waitpid(\(pid))") { waitpid(pid, &status, 0) }
                return .timedOut
            }
            usleep(10_000)
        }
        let signalled = status & 0x7F
        return .exited(signalled == 0 ? (status >> 8) & 0xFF : 128 + signalled)
    }
}
