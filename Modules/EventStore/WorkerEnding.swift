import Dispatch
import Synchronization

/// Whether a background worker's thread has ended: the `wait()` and `stop(grace:)` of the
/// stores' workers (SQLite's `IngestOwner` and `RollupWorker`, PostgreSQL's aggregate builder).
/// The thread calls `ended()` as it returns.
public final class WorkerEnding: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    public init() {}

    /// Called by `start`, before the thread runs.
    public func starting() { started.store(true, ordering: .releasing) }

    /// Called by the thread as it returns.
    public func ended() { done.signal() }

    /// Waits until the thread has ended (at once when it never started), at most `timeout`
    /// (nil: however long); returns whether it has.
    @discardableResult
    public func wait(timeout: Duration? = nil) -> Bool {
        guard started.load(ordering: .acquiring) else { return true }
        let deadline: DispatchTime =
            timeout.map { t in
                let (seconds, attoseconds) = t.components
                return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            } ?? .distantFuture
        guard done.wait(timeout: deadline) == .success else { return false }
        done.signal()  // every later wait returns at once
        return true
    }
}
