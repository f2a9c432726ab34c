#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif
package import CSystemCalls
import Synchronization

/// The child `runChild` waits for, so its signal handler can pass SIGTERM and SIGINT on; 0 when none.
private let forwardedChild = Atomic<Int32>(0)

/// The handler `runChild` installs: one `kill` (async-signal-safe).
private func forwardSignalToChild(_ signal: Int32) {
    let pid = forwardedChild.load(ordering: .sequentiallyConsistent)
    if pid > 0 { kill(pid, signal) }
}

extension Posix {
    /// Starts `executable` with `arguments` (the first is its name) and exactly `environment` (this
    /// process's own when nil), with no signal blocked and `defaultSignals` at their default
    /// actions, whatever this process inherited or ignores (a test runner may block SIGTERM; the
    /// agent ignores SIGXFSZ). `standardInput`, when given, becomes the child's fd 0;
    /// `newProcessGroup` makes the child lead a process group of its own (so `kill(-pid, …)`
    /// reaches everything it starts). `standardOutput`, when given, becomes its fd 1, and its fd 2
    /// too unless `standardError` is given; `closeFromThree` closes every other descriptor in the
    /// child, ours without `FD_CLOEXEC` too. `workingDirectory`, when given, is the child's.
    package static func spawn(
        _ executable: String, arguments: [String], environment: [String: String]?, defaultSignals: [Int32],
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil, closeFromThree: Bool = false,
        newProcessGroup: Bool = false, workingDirectory: String? = nil
    ) throws(PosixError) -> pid_t {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer {
            for p in argv { free(p) }
            for p in envp ?? [] { free(p) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let standardInput { posix_spawn_file_actions_adddup2(&actions, standardInput, 0) }
        if let standardOutput { posix_spawn_file_actions_adddup2(&actions, standardOutput, 1) }
        if let errors = standardError ?? standardOutput { posix_spawn_file_actions_adddup2(&actions, errors, 2) }
        if closeFromThree {
            let rc = csc_spawn_close_from(&actions, 3)
            guard rc == 0 else { throw PosixError("posix_spawn_file_actions_addclosefrom_np(\(executable))", errno: rc) }
        }
        if let workingDirectory {
            let rc = csc_spawn_chdir(&actions, workingDirectory)
            guard rc == 0 else { throw PosixError("posix_spawn_file_actions_addchdir_np(\(workingDirectory))", errno: rc) }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in defaultSignals { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if newProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        // posix_spawn returns the error number instead of setting errno.
        let rc = envp.map { e in posix_spawn(&pid, executable, &actions, &attributes, argv, e) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw PosixError("posix_spawn(\(executable))", errno: rc) }
        return pid
    }

    /// A `waitpid` status as a shell reports it: the exit status, or 128 + the signal that ended it.
    package static func exitStatus(_ status: Int32) -> Int32 { ProgramEnding(waitStatus: status).shellStatus }

    /// Waits for the child `pid` to end: its exit status, or 128 + the signal that ended it (as a shell reports it).
    package static func waitForExit(_ pid: pid_t) throws(PosixError) -> Int32 {
        var status: Int32 = 0
        _ = try check("waitpid(\(pid))") { waitpid(pid, &status, 0) }
        return exitStatus(status)
    }

    /// Runs a program as a child (`spawn`) and waits for it (`waitForExit`); SIGTERM and SIGINT
    /// sent to this process meanwhile are passed on to the child. One child at a time per process.
    package static func runChild(
        _ executable: String, arguments: [String], environment: [String: String], defaultSignals: [Int32]
    ) throws(PosixError) -> Int32 {
        let pid = try spawn(executable, arguments: arguments, environment: environment, defaultSignals: defaultSignals)
        var passOn = sigset_t()
        sigemptyset(&passOn)
        sigaddset(&passOn, SIGTERM)
        sigaddset(&passOn, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &passOn, nil)
        forwardedChild.store(pid, ordering: .sequentiallyConsistent)
        let oldTerm = signal(SIGTERM, forwardSignalToChild)
        let oldInt = signal(SIGINT, forwardSignalToChild)
        defer {
            signal(SIGTERM, oldTerm)
            signal(SIGINT, oldInt)
            forwardedChild.store(0, ordering: .sequentiallyConsistent)
        }
        return try waitForExit(pid)
    }

    /// Runs `executable` with `arguments` (the first is its name) and this process's environment,
    /// standard input from `/dev/null`, standard output and error into the file `output`, and no
    /// other descriptor of ours (so a daemon it leaves running, like `pg_ctl start`'s server,
    /// holds none of them); at `timeout` it is killed (SIGKILL). Blocks the calling thread
    /// (polling every 5 ms): only on a thread of the caller's own.
    package static func runProgram(_ executable: String, arguments: [String], output: String, timeout: Duration) throws(PosixError)
        -> ShellCommandOutcome
    {
        let input = try open("/dev/null", O_RDONLY)
        defer { close(input) }
        let out = try open(output, O_WRONLY | O_CREAT | O_TRUNC)
        defer { close(out) }
        let pid = try spawn(
            executable, arguments: arguments, environment: nil, defaultSignals: [], standardInput: input, standardOutput: out,
            closeFromThree: true)
        return try waitForExit(pid, until: ContinuousClock.now + timeout, killing: pid, every: .milliseconds(5))
    }

    /// Waits for the child `pid` until `deadline`, looking every `interval`; past it, sends SIGKILL
    /// to `victim` (the child, or `-pid`: its process group) and reaps the child.
    package static func waitForExit(_ pid: pid_t, until deadline: ContinuousClock.Instant, killing victim: pid_t, every interval: Duration)
        throws(PosixError) -> ShellCommandOutcome
    {
        var status: Int32 = 0
        while true {
            if try check("waitpid(\(pid))", { waitpid(pid, &status, WNOHANG) }) == pid { break }
            if ContinuousClock.now >= deadline {
                kill(victim, SIGKILL)
                _ = try check("waitpid(\(pid))") { waitpid(pid, &status, 0) }
                return .timedOut
            }
            sleep(interval)
        }
        return .exited(exitStatus(status))
    }

    /// The exit status of the child `pid` if it has ended (then it is reaped), nil while it runs.
    package static func exitStatusIfEnded(_ pid: pid_t) throws(PosixError) -> Int32? {
        var status: Int32 = 0
        guard try check("waitpid(\(pid))", { waitpid(pid, &status, WNOHANG) }) == pid else { return nil }
        return exitStatus(status)
    }

    /// Sends `signal` to the process `pid` (a negative `pid`: to its process group).
    package static func sendSignal(_ signal: Int32, to pid: pid_t) throws(PosixError) {
        _ = try check("kill(\(pid), \(signal))") { kill(pid, signal) }
    }

    /// Whether a process `pid` exists (signal 0: one of another user counts too).
    package static func processExists(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// Blocks the calling thread for `duration` (a signal does not cut it short). Only on a
    /// thread of the caller's own, never a task of the Swift concurrency pool.
    package static func sleep(_ duration: Duration) {
        guard duration > .zero else { return }
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// The kernel's name and release (`uname`: `Linux`, `6.1.0-18-amd64`), nil if it cannot say.
    package static func kernel() -> (name: String, release: String)? {
        var u = utsname()
        guard uname(&u) == 0 else { return nil }
        func field<T>(_ tuple: inout T) -> String {
            withUnsafeBytes(of: &tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        }
        return (field(&u.sysname), field(&u.release))
    }
}
