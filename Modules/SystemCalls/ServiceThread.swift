import Dispatch
import Synchronization

/// The thread of a background service: `start(running:)` runs a body once on a system thread of
/// its own, which between rounds of its work waits with `pause(for:)`: that returns early on
/// `wake()`, and false once a stop was asked for. One stop flag, one wakeup and one exit signal,
/// here, for every worker built on it; the body is let go when it returns.
package final class ServiceThread: Sendable {
    private struct State {
        var started = false
        var stopping = false
        var stopDeadline: ContinuousClock.Instant?
        var threadID: UInt?
    }

    /// The thread's system name (Linux keeps 15 bytes).
    package let threadName: String
    private let state = Mutex(State())
    private let wakeup = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    /// A thread named `threadName`, not started yet.
    package init(threadName: String) {
        self.threadName = threadName
    }

    /// Starts the thread running `body`; a second call does nothing.
    package func start(running body: @escaping @Sendable (ServiceThread) -> Void) {
        guard state.withLock({ s in defer { s.started = true }; return !s.started }) else { return }
        Posix.startThread(name: threadName) { [self] in
            state.withLock { $0.threadID = Posix.currentThreadID() }
            body(self)
            exited.signal()
        }
    }

    /// True once a stop was asked for: the body finishes what it holds and returns.
    package var isStopping: Bool { state.withLock { $0.stopping } }

    /// When the grace period of the stop asked for ends; nil while none was.
    package var stopDeadline: ContinuousClock.Instant? { state.withLock { $0.stopDeadline } }

    /// Whether the caller runs on this thread.
    package var isCurrent: Bool {
        let me = Posix.currentThreadID()
        return state.withLock { $0.threadID == me }
    }

    /// Waits `interval` (at least a millisecond), less when woken; false when a stop was asked for.
    package func pause(for interval: Duration) -> Bool {
        guard !isStopping else { return false }
        _ = wakeup.wait(timeout: .now() + .nanoseconds(max(1_000_000, interval.waitNanoseconds)))
        return !isStopping
    }

    /// Ends the current pause now (or the next one, when the body is busy).
    package func wake() { wakeup.signal() }

    /// Asks the body to return: it finishes what it holds by `grace` from now (`stopDeadline`).
    package func requestStop(grace: Duration) {
        let asked = state.withLock { s -> Bool in
            guard s.started, !s.stopping else { return false }
            s.stopping = true
            s.stopDeadline = ContinuousClock.now + grace
            return true
        }
        if asked { wakeup.signal() }
    }

    /// Waits until the body has returned, at most `timeout`; true when it did (or never started).
    package func waitUntilStopped(timeout: Duration) -> Bool {
        waitForExit(until: .now() + .nanoseconds(max(0, timeout.waitNanoseconds)))
    }

    /// Waits until the body has returned, however long that takes: for a body whose stop is
    /// bounded by its own deadlines (a server's drain).
    package func waitUntilStopped() {
        _ = waitForExit(until: .distantFuture)
    }

    private func waitForExit(until deadline: DispatchTime) -> Bool {
        let (started, current) = state.withLock { ($0.started, $0.threadID == Posix.currentThreadID()) }
        // Never started: nothing runs. Its own thread cannot wait for itself.
        guard started, !current else { return true }
        guard exited.wait(timeout: deadline) == .success else { return false }
        exited.signal()  // a second wait returns at once too
        return true
    }
}
