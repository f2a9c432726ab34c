/// How fast batches arrive in the ingest log, measured over windows of at least `window`: what
/// tells the `ingest-store` thread and the rollup workers that a burst goes on
/// (`IngestOwner.burstRate`). Kept under the backlog's lock, updated by each logged group.
struct AppendRate {
    /// The shortest window a rate is measured over.
    static let window = Duration.milliseconds(50)

    /// The window being counted: when it began, and the events logged since (the group that
    /// began it included).
    private var start: ContinuousClock.Instant?
    private var events = 0
    /// Events a second over the last whole window, and when it ended.
    private var lastRate = 0.0
    private var lastEnd: ContinuousClock.Instant?

    /// `count` events logged at `now`. A group that ends a window of at least `window` begins
    /// the next one, so a window's rate counts what arrived within it only.
    mutating func logged(_ count: Int, at now: ContinuousClock.Instant) {
        guard let start, now - start >= Self.window else {
            if start == nil { start = now }
            events += count
            return
        }
        lastRate = Double(events) / ((now - start) / .seconds(1))
        lastEnd = now
        self.start = now
        events = count
    }

    /// Whether the appends come faster than `rate` events a second at `now`: the last whole
    /// window did, and it ended less than two windows ago (appends that stopped are no burst).
    func exceeds(_ rate: Int, at now: ContinuousClock.Instant) -> Bool {
        guard let lastEnd, now - lastEnd < Self.window * 2 else { return false }
        return lastRate > Double(rate)
    }
}
