import Synchronization

/// Work that either of two threads may run, once: a UI thread at its next turn
/// (`runIfUnclaimed`), or the thread waiting for it once a while passed (`wait(within:)`), the
/// other's call then doing nothing. For cleanup that belongs on a UI thread whose loop may be busy
/// (the preloads' ending signals).
package final class ClaimedWork: Sendable {
    private let work: @Sendable () -> Void
    private let state = Atomic<Int>(0)  // 0 unclaimed, 1 running, 2 done

    package init(_ work: @escaping @Sendable () -> Void) { self.work = work }

    /// Runs the work unless the other thread claimed it.
    package func runIfUnclaimed() {
        guard state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
        work()
        state.store(2, ordering: .releasing)
    }

    /// Waits up to `wait` for the other thread to run it, then runs it here if nobody did;
    /// returns once it ran, wherever.
    package func wait(within wait: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while state.load(ordering: .acquiring) != 2, clock.now < deadline { Posix.sleep(.milliseconds(5)) }  // bounded by `wait`
        runIfUnclaimed()
        while state.load(ordering: .acquiring) != 2 { Posix.sleep(.milliseconds(5)) }  // claimed: the other thread runs it
    }
}
