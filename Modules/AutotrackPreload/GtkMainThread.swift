import CGtk
import SystemCalls

/// Work for the GTK thread from another thread: queued at the main loop's next turn
/// (`g_idle_add_full`, which may be called from any thread), waited for at most a while. When the
/// loop does not turn in time (the app is busy in code of its own), the caller runs the work itself
/// instead; whichever side claims it first runs it, once.
enum GtkMainThread {
    /// Runs `work` on the GTK thread, or here once `within` passed without the loop taking it.
    static func run(within wait: Duration, _ work: @escaping @Sendable () -> Void) {
        let job = ClaimedWork(work)
        _ = g_idle_add_full(
            Int32(G_PRIORITY_HIGH),
            { data in
                guard let data else { return 0 }
                Unmanaged<ClaimedWork>.fromOpaque(data).takeUnretainedValue().runIfUnclaimed()
                return 0
            }, Unmanaged.passRetained(job).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<ClaimedWork>.fromOpaque(data).release()
            })
        job.wait(within: wait)
    }
}
