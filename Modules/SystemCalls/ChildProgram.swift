#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// How a child program ended.
package enum ProgramEnding: Sendable, Equatable {
    /// It exited with this status.
    case exited(Int32)
    /// This signal ended it.
    case signalled(Int32)

    /// What a `waitpid` status says.
    package init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
    }

    /// As a shell reports it: the exit status, or 128 + the signal.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        }
    }
}

/// A program this process started (`posix_spawn`) and reaps: the tests' and tools' way to run
/// another program, in place of Foundation's `Process`, whose `run()` on Linux reads past a
/// buffer while it lists `/proc/self/fd` and crashes the parent now and then.
///
/// The child gets exactly the descriptors it is given as 0, 1 and 2 and no other of ours; every
/// signal unblocked, and SIGPIPE, SIGINT and SIGTERM at their default actions. A descriptor the
/// caller passes stays the caller's to close (the write end of a pipe it reads, say, once the
/// child has it). Every wait polls (5 ms), so none blocks a lock; blocking waits belong on a
/// thread of the caller's own. Signals go only to a child not yet reaped, never to a reused pid.
package final class ChildProgram: Sendable {
    /// Where one of the child's standard streams goes.
    package enum Stream: Sendable {
        /// This process's own stream.
        case inherited
        /// `/dev/null`.
        case discarded
        /// This open descriptor of ours (the caller keeps it).
        case descriptor(Int32)
    }

    /// The child's process id.
    package let pid: Int32
    /// The program and its arguments, for messages.
    package let label: String
    private let ending = Mutex<ProgramEnding?>(nil)

    /// Starts `executable` (a path) with `arguments` (not counting its name) and `environment`
    /// (this process's own when nil), in `workingDirectory` (ours when nil).
    package init(
        _ executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        standardInput: Stream = .discarded, standardOutput: Stream = .inherited, standardError: Stream = .inherited
    ) throws(PosixError) {
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        func descriptor(_ stream: Stream, standard: Int32, flags: Int32) throws(PosixError) -> Int32 {
            switch stream {
            case .inherited: return standard
            case .descriptor(let fd): return fd
            case .discarded:
                let fd = try Posix.open("/dev/null", flags)
                opened.append(fd)
                return fd
            }
        }
        let input = try descriptor(standardInput, standard: 0, flags: O_RDONLY)
        let output = try descriptor(standardOutput, standard: 1, flags: O_WRONLY)
        let errors = try descriptor(standardError, standard: 2, flags: O_WRONLY)
        pid = try Posix.spawn(
            executable, arguments: [name] + arguments, environment: environment, defaultSignals: [SIGPIPE, SIGINT, SIGTERM],
            standardInput: input, standardOutput: output, standardError: errors, closeFromThree: true,
            workingDirectory: workingDirectory)
        label = ([name] + arguments).joined(separator: " ")
    }

    deinit {
        // A child dropped while it runs is killed and reaped: none is left behind as a zombie.
        if isRunning {
            kill(pid, SIGKILL)
            _ = waitForExit()
        }
    }

    /// How it ended; nil while it runs (a child that ended is reaped now).
    package var ended: ProgramEnding? {
        ending.withLock { ending in
            if ending == nil {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid { ending = ProgramEnding(waitStatus: status) }
            }
            return ending
        }
    }

    /// Whether it still runs.
    package var isRunning: Bool { ended == nil }

    /// Sends `signal` while it runs (to a child that ended, nothing is sent).
    package func send(_ signal: Int32) {
        ending.withLock { ending in
            if ending == nil { kill(pid, signal) }
        }
    }

    /// Asks it to stop (SIGTERM).
    package func terminate() { send(SIGTERM) }

    /// Waits for it to end, however long that takes.
    @discardableResult
    package func waitForExit() -> ProgramEnding {
        while true {
            if let ended { return ended }
            Posix.sleep(.milliseconds(5))
        }
    }

    /// Waits up to `timeout` for it to end; nil when it still runs then.
    package func waitForExit(within timeout: Duration) -> ProgramEnding? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let ended { return ended }
            Posix.sleep(.milliseconds(5))
        }
        return ended
    }

    /// Waits up to `timeout` for it to end, then kills it (SIGKILL) and reaps it: how it ended,
    /// and whether it had to be killed.
    package func stop(within timeout: Duration) -> (ending: ProgramEnding, killed: Bool) {
        if let ended = waitForExit(within: timeout) { return (ended, false) }
        send(SIGKILL)
        return (waitForExit(), true)
    }
}
