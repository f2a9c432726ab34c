import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of threads we own, running jobs in submission order (the first free thread takes
/// the next job). Servers run handler calls on it: those may block on disk or a database, so
/// they never run on an I/O thread nor on the Swift concurrency pool.
package final class ThreadPool: Sendable {
    private struct State {
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var stopping = false
    }

    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    private let threadCount: Int

    /// Starts `threads` threads (at least one), named `name-0`, `name-1`, ….
    package init(threads: Int, name: String) {
        threadCount = max(1, threads)
        for i in 0..<threadCount {
            Posix.startThread(name: "\(name)-\(i)") { [self] in work() }
        }
    }

    /// Queues a job; false once the pool is stopping.
    @discardableResult
    package func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { s -> Bool in
            guard !s.stopping else { return false }
            s.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// Lets queued jobs finish, then ends every thread and waits for them.
    package func stopAndWait() {
        let alreadyStopping = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return s.stopping
        }
        guard !alreadyStopping else { return }
        for _ in 0..<threadCount {
            state.withLock { $0.jobs.append(nil) }
            available.signal()
        }
        for _ in 0..<threadCount { exited.wait() }
    }

    private func work() {
        while true {
            available.wait()
            let job = state.withLock { s -> (@Sendable () -> Void)?? in
                guard s.head < s.jobs.count else { return .none }
                let j = s.jobs[s.head]
                s.jobs[s.head] = nil
                s.head += 1
                if s.head > 1024 && s.head * 2 > s.jobs.count {
                    s.jobs.removeFirst(s.head)
                    s.head = 0
                }
                return .some(j)
            }
            guard case .some(let next) = job else { continue }
            guard let next else { break }  // the stop marker
            next()
        }
        exited.signal()
    }
}
