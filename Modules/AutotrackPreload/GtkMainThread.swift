import CGtk
import Synchronization
import SystemCalls

/// Work for the GTK thread from another thread: queued at the main loop's next turn
/// (`g_idle_add_full`, which may be called from any thread), waited for at most a while. When the
/// loop does not turn in time (the app is busy in code of its own), the caller runs the work itself
/// instead; whichever side claims it first runs it, once.
enum GtkMainThread {
    /// Runs `work` on the GTK thread, or here once `within` passed without the loop taking it.
    static func run(within wait: Duration, _ work: @escaping @Sendable () -> Void) {
        let job = Job(work)
        _ = g_idle_add_full(
            Int32(G_PRIORITY_HIGH),
            { data in
                guard let data else { return 0 }
                Unmanaged<Job>.fromOpaque(data).takeUnretainedValue().runIfUnclaimed()
                return 0
            }, Unmanaged.passRetained(job).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<Job>.fromOpaque(data).release()
            })
        let clock = ContinuousClock()
        let deadline = clock.now + wait
        while !job.isDone, clock.now < deadline { Posix.sleep(.milliseconds(5)) }  // bounded by `wait`
        job.runIfUnclaimed()
        while !job.isDone { Posix.sleep(.milliseconds(5)) }  // the GTK thread claimed it and is running it
    }

    /// One piece of work and who claimed it.
    private final class Job: Sendable {
        private let work: @Sendable () -> Void
        private let state = Atomic<Int>(0)  // 0 unclaimed, 1 running, 2 done

        init(_ work: @escaping @Sendable () -> Void) { self.work = work }

        var isDone: Bool { state.load(ordering: .acquiring) == 2 }

        func runIfUnclaimed() {
            guard state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged else { return }
            work()
            state.store(2, ordering: .releasing)
        }
    }
}
