import CSystemCalls
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The write end of the signal pipe; -1 when no signal is routed. An atomic, because the signal
/// handler reads it on whatever thread the kernel interrupts.
private let signalPipeWriteFD = Atomic<Int32>(-1)

/// A signal disposition as `signal(2)` returns it.
package typealias SignalHandler = __sighandler_t?

/// The signal handler: one write of the signal number, errno preserved (async-signal-safe).
private func writeSignalToPipe(_ signal: Int32) {
    let saved = errno
    let fd = signalPipeWriteFD.load(ordering: .relaxed)
    if fd >= 0 {
        var b = UInt8(truncatingIfNeeded: signal)
        _ = Glibc.write(fd, &b, 1)
    }
    errno = saved
}

extension Posix {
    /// Routes `signals` to a pipe: a handler (async-signal-safe: one `write`) puts each signal's
    /// number on it, whichever thread the kernel picked. Returns the read end and the actions to
    /// restore. A Dispatch signal source over `SIG_IGN` can lose a process-directed signal that
    /// lands on a thread Dispatch does not watch; a handler cannot.
    /// (glibc's `signal` installs with BSD semantics: the handler stays, interrupted calls restart.)
    package static func routeSignalsToPipe(_ signals: [Int32]) throws(PosixError) -> (readFD: Int32, previous: [(Int32, SignalHandler)]) {
        let (r, w) = try pipe()
        guard signalPipeWriteFD.compareExchange(expected: -1, desired: w, ordering: .sequentiallyConsistent).exchanged else {
            close(r)
            close(w)
            throw PosixError("sigaction (signals are already routed to another waiter)", errno: EBUSY)
        }
        var previous: [(Int32, SignalHandler)] = []
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals {
            previous.append((s, Glibc.signal(s, writeSignalToPipe)))
            sigaddset(&set, s)
        }
        // A parent may have started us with these signals blocked (a mask is inherited across
        // exec): unblock them on this thread, so at least one thread takes them.
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return (r, previous)
    }

    /// Whether `signal` is at its default action now (neither ignored nor handled): a library
    /// that catches it for its own cleanup takes only signals nobody else chose what to do with.
    package static func hasDefaultAction(_ signal: Int32) -> Bool {
        csc_signal_is_default(signal) == 1
    }

    /// Raises `signal` in this process at its default action (`SIG_DFL`, then `raise`): a
    /// program that cleaned up after catching it ends as that signal would have ended it.
    package static func dieOfSignal(_ signal: Int32) -> Never {
        _ = Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
        _ = Glibc.raise(signal)
        _exit(128 + signal)
    }

    /// Ignores SIGXFSZ, whose default action kills the process without a word when a write passes
    /// the file-size limit (`ulimit -f`): the write fails with `EFBIG` instead, and the caller says
    /// so (`PosixError.isFileTooLarge`). Programs this process starts inherit the ignored signal,
    /// so a launcher puts it back to the default for them (`posix_spawnattr_setsigdefault`).
    package static func ignoreFileSizeLimitSignal() {
        _ = Glibc.signal(SIGXFSZ, SIG_IGN)
    }

    /// Blocks until a routed signal arrives, or `readFD` is closed; returns the signal (0 when closed).
    package static func awaitSignal(_ readFD: Int32) -> Int32 {
        while true {
            var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            let n = Glibc.poll(&p, 1, -1)
            if n < 0 {
                if errno == EINTR { continue }
                return 0
            }
            var b: UInt8 = 0
            let got = Glibc.read(readFD, &b, 1)
            if got == 1 { return Int32(b) }
            if got < 0, errno == EAGAIN || errno == EINTR { continue }
            return 0
        }
    }

    /// Puts back the actions `routeSignalsToPipe` replaced and closes its pipe.
    package static func unrouteSignals(_ previous: [(Int32, SignalHandler)], readFD: Int32) {
        for (s, old) in previous { _ = Glibc.signal(s, old) }
        let w = signalPipeWriteFD.exchange(-1, ordering: .sequentiallyConsistent)
        if w >= 0 { close(w) }
        close(readFD)
    }
}

/// Blocks until one of some signals arrives, without the default action of killing the
/// process (service-lifecycle's graceful shutdown, without the package). One at a time per process.
package final class SignalWaiter {
    private let readFD: Int32
    private let previous: [(Int32, SignalHandler)]

    package init(_ signals: [Int32]) throws(PosixError) {
        (readFD, previous) = try Posix.routeSignalsToPipe(signals)
    }

    /// Returns the signal that arrived.
    @discardableResult
    package func wait() -> Int32 { Posix.awaitSignal(readFD) }

    /// Waits at most `timeoutMilliseconds` for a signal; nil when none came in time (or the
    /// wait was interrupted: the caller's loop asks again).
    package func wait(timeoutMilliseconds: Int32) -> Int32? {
        var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&p, 1, max(timeoutMilliseconds, 0)) > 0 else { return nil }
        var b: UInt8 = 0
        return Glibc.read(readFD, &b, 1) == 1 ? Int32(b) : 0
    }

    /// Restores the previous signal actions.
    package func cancel() { Posix.unrouteSignals(previous, readFD: readFD) }

    /// What a service's `run` does once it has started: routes SIGINT and SIGTERM here, calls
    /// `onStart` (so a script told the service is up can stop it with either), waits for one,
    /// and restores the signals' actions; the caller then stops the service.
    package static func waitForTermination(onStart: () -> Void) throws(PosixError) {
        let signals = try SignalWaiter([SIGINT, SIGTERM])
        defer { signals.cancel() }
        onStart()
        signals.wait()
    }
}
