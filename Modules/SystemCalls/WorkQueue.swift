import Dispatch
import Synchronization

/// Work run in order on one `ServiceThread`, as a serial queue: `async` queues a job (now or
/// after a delay), `sync` waits until every job queued before it has run. The thread starts
/// with the first job and ends when the queue is stopped or released; a job holds what it
/// captures until it has run, so a queue's owner lives while its jobs wait.
package final class WorkQueue: BackgroundService {
    private struct Job {
        let due: ContinuousClock.Instant
        let work: @Sendable () -> Void
    }

    private struct State {
        /// Ordered by `due`, jobs due at the same time in the order queued.
        var jobs: [Job] = []
        var stopped = false
    }

    package let serviceName: String
    private let thread: ServiceThread
    private let state = Mutex(State())

    /// A queue whose thread is named `threadName` (Linux keeps 15 bytes).
    package init(threadName: String) {
        serviceName = threadName
        thread = ServiceThread(threadName: threadName)
    }

    deinit { thread.requestStop(grace: .zero) }

    package func start() {
        thread.start { [weak self] thread in
            while true {
                // Only a round holds the queue: between rounds a released queue ends the thread.
                guard let wait = self?.runDue() else { return }
                if !thread.pause(for: wait) {
                    self?.runAll()
                    return
                }
            }
        }
    }

    /// Runs `work` on the queue's thread after `delay`, after every job queued before it that is
    /// due no later. A job queued after `stop` runs on the caller's thread.
    package func async(after delay: Duration = .zero, _ work: @escaping @Sendable () -> Void) {
        let due = ContinuousClock.now + delay
        let queued = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            let at = s.jobs.lastIndex(where: { $0.due <= due }).map { $0 + 1 } ?? 0
            s.jobs.insert(Job(due: due, work: work), at: at)
            return true
        }
        guard queued else { return work() }
        start()
        thread.wake()
    }

    /// Waits until every job queued before this call has run (a delayed one too: this runs after
    /// it), at most `timeout`; false when the time ran out.
    @discardableResult
    package func sync(timeout: Duration) -> Bool {
        if thread.isCurrent { return true }
        let done = DispatchSemaphore(value: 0)
        let latest = state.withLock { $0.jobs.last?.due }
        let delay = latest.map { max(.zero, $0 - ContinuousClock.now) } ?? .zero
        async(after: delay) { done.signal() }
        return done.wait(timeout: .now() + .nanoseconds(timeout.waitNanoseconds)) == .success
    }

    /// Runs what is queued (delayed jobs at once), then ends the thread, within `grace`.
    @discardableResult
    package func stop(grace: Duration) -> Bool {
        state.withLock { $0.stopped = true }
        thread.requestStop(grace: grace)
        return thread.waitUntilStopped(timeout: grace)
    }

    /// Runs the jobs due now; returns how long until the next one is (long when none waits).
    private func runDue() -> Duration {
        while true {
            let now = ContinuousClock.now
            let next = state.withLock { s -> Next in
                guard let first = s.jobs.first else { return .wait(.seconds(3600)) }
                guard first.due <= now else { return .wait(first.due - now) }
                return .run(s.jobs.removeFirst())
            }
            switch next {
            case .run(let job): job.work()
            case .wait(let wait): return wait
            }
        }
    }

    private enum Next {
        case run(Job)
        case wait(Duration)
    }

    /// Runs every job left, due or not, in order.
    private func runAll() {
        while let job = state.withLock({ s in s.jobs.isEmpty ? nil : s.jobs.removeFirst() }) { job.work() }
    }
}
