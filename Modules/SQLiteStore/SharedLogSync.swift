import Dispatch
import EventStore
import Synchronization

/// Makes commits durable with syncs shared between them, outside the store's write lock.
///
/// Each group commit runs its COMMIT without a sync (`synchronous = NORMAL`), numbers itself
/// (`committed()`, under the write lock, right after COMMIT returned) and releases the lock;
/// then each of its callers waits in `waitUntilDurable(through:)`. A sync covers every group
/// numbered before it started: a caller whose group a finished sync covers returns at once; one
/// whose group a running sync covers waits for it; otherwise the first such caller starts a
/// sync of everything committed so far, and the others wait for that one. So one sync serves
/// every group that committed while the previous one ran, and nobody returns before a sync that
/// started after its group's COMMIT.
///
/// A failed sync fails every group it covered and every later one: the kernel may have dropped
/// the log's unwritten pages, and a later sync that succeeds does not bring them back while
/// recovery stops at the first missing frame, so no later commit can be called durable. The
/// store must be reopened (the collector restarted; SQLite recovers the log on open).
///
/// Waiting blocks the calling thread (a semaphore): call it from threads of your own.
final class SharedLogSync: Sendable {
    /// Makes everything written to the log so far durable.
    private let sync: @Sendable () throws(StoreError) -> Void
    private let state = Mutex(State())

    private struct State: ~Copyable {
        /// Groups committed, numbered from 1.
        var committed: UInt64 = 0
        /// Every group up to this one is durable.
        var durable: UInt64 = 0
        /// The last group the running sync covers; nil when none runs.
        var syncing: UInt64?
        /// Why a sync failed; then every wait fails with it.
        var failure: StoreError?
        /// Callers waiting for the running sync to end.
        var waiting: [DispatchSemaphore] = []
    }

    init(sync: @escaping @Sendable () throws(StoreError) -> Void) {
        self.sync = sync
    }

    /// Numbers a group whose COMMIT just returned; call under the write lock, so the numbers
    /// follow the commits' order.
    func committed() -> UInt64 {
        state.withLock { s in
            s.committed += 1
            return s.committed
        }
    }

    /// Groups numbered so far (for tests: syncs against groups).
    var groups: UInt64 { state.withLock { $0.committed } }

    /// Returns once a sync that started after group `group` committed has finished; throws when
    /// a sync failed (that one or an earlier one).
    func waitUntilDurable(through group: UInt64) throws(StoreError) {
        while true {  // each turn returns, or waits for a sync that ends
            enum Next {
                case done
                case failed(StoreError)
                case wait(DispatchSemaphore)
                case sync(through: UInt64)
            }
            let next = state.withLock { s -> Next in
                if let failure = s.failure { return .failed(failure) }
                if s.durable >= group { return .done }
                if s.syncing == nil {
                    s.syncing = s.committed
                    return .sync(through: s.committed)
                }
                let wake = DispatchSemaphore(value: 0)
                s.waiting.append(wake)
                return .wait(wake)
            }
            switch next {
            case .done: return
            case .failed(let error): throw error
            case .wait(let wake): wake.wait()
            case .sync(let through):
                let failure: StoreError?
                do throws(StoreError) {
                    try sync()
                    failure = nil
                } catch {
                    failure = error
                }
                let woken = state.withLock { s -> [DispatchSemaphore] in
                    s.syncing = nil
                    if let failure {
                        if s.failure == nil { s.failure = failure }
                    } else {
                        s.durable = max(s.durable, through)
                    }
                    defer { s.waiting = [] }
                    return s.waiting
                }
                for wake in woken { wake.signal() }
            }
        }
    }
}
