#if DEBUG
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Debug-only seam: tests make chosen fds see would-block, short transfers or errors
/// (`ECONNRESET`, `ENOSPC`) on their next reads and writes, and a listener see `EMFILE` on its
/// next accepts, without a hostile kernel. Consulted by `Posix.read`, `Posix.send`,
/// `Posix.writeAll` and `Posix.accept`; cleared when the fd is closed. `Posix.fdatasync` counts
/// its calls per path and meets the faults queued for that path. Not compiled in release.
package enum FaultInjection {
    /// What the next read or write on an fd sees instead of the real call.
    package enum Fault: Sendable, Equatable {
        case wouldBlock
        /// At most this many bytes move.
        case short(Int)
        case error(Int32)

        /// The errno a file write reports for it (a file never would-blocks: `EAGAIN`).
        var errno: Int32 {
            switch self {
            case .error(let e): return e
            case .wouldBlock, .short: return EAGAIN
            }
        }
    }

    /// Which direction a fault applies to.
    package enum Direction: Sendable { case read, write }

    private struct Plan {
        var reads: [Fault] = []
        var writes: [Fault] = []
        var acceptErrors: [Int32] = []
        var isEmpty: Bool { reads.isEmpty && writes.isEmpty && acceptErrors.isEmpty }
    }

    private static let plans = Mutex<[Int32: Plan]>([:])

    /// Queues faults for the next calls on `fd`; each is consumed once, in order.
    package static func inject(fd: Int32, reads: [Fault] = [], writes: [Fault] = []) {
        plans.withLock { p in
            var plan = p[fd] ?? Plan()
            plan.reads += reads
            plan.writes += writes
            p[fd] = plan
        }
    }

    /// Makes the next accepts on `listener` fail with these errnos (e.g. `EMFILE`).
    package static func injectAcceptErrors(listener: Int32, _ errors: [Int32]) {
        plans.withLock { p in
            var plan = p[listener] ?? Plan()
            plan.acceptErrors += errors
            p[listener] = plan
        }
    }

    static func next(fd: Int32, _ direction: Direction) -> Fault? {
        plans.withLock { p -> Fault? in
            guard var plan = p[fd] else { return nil }
            var fault: Fault?
            switch direction {
            case .read: if !plan.reads.isEmpty { fault = plan.reads.removeFirst() }
            case .write: if !plan.writes.isEmpty { fault = plan.writes.removeFirst() }
            }
            p[fd] = plan.isEmpty ? nil : plan
            return fault
        }
    }

    static func nextAcceptError(listener: Int32) -> Int32? {
        plans.withLock { p -> Int32? in
            guard var plan = p[listener], !plan.acceptErrors.isEmpty else { return nil }
            let e = plan.acceptErrors.removeFirst()
            p[listener] = plan.isEmpty ? nil : plan
            return e
        }
    }

    /// What an `fdatasync` of a path does before (or instead of) the real call.
    package enum SyncFault: Sendable, Equatable {
        /// Fails with this errno; the real call is not made.
        case error(Int32)
        /// Sleeps this long, then makes the real call (a slow disk).
        case delay(Duration)
    }

    /// Syncs of a path: the faults queued for the next ones, one kept for every one after them,
    /// and how many were asked for.
    private struct SyncPlan {
        var next: [SyncFault] = []
        var always: SyncFault?
        var calls = 0
    }

    private static let syncPlans = Mutex<[String: SyncPlan]>([:])

    /// Queues faults for the next `fdatasync`s of `path`, each consumed once, in order; `always`
    /// applies to every one after them (until `clearSyncs`). Keyed by path, not fd: a test
    /// knows the files it makes, not the descriptors a store opens on them.
    package static func injectSyncFaults(path: String, _ faults: [SyncFault] = [], always: SyncFault? = nil) {
        syncPlans.withLock { p in
            p[path, default: SyncPlan()].next += faults
            if let always { p[path, default: SyncPlan()].always = always }
        }
    }

    /// How many `fdatasync`s of `path` were asked for (failed ones included) since `clearSyncs`.
    package static func syncCalls(path: String) -> Int {
        syncPlans.withLock { $0[path]?.calls ?? 0 }
    }

    /// Forgets `path`'s faults and its count.
    package static func clearSyncs(path: String) {
        syncPlans.withLock { _ = $0.removeValue(forKey: path) }
    }

    /// Counts a sync of `path` and returns the fault it meets, if any.
    static func nextSync(path: String) -> SyncFault? {
        syncPlans.withLock { p -> SyncFault? in
            p[path, default: SyncPlan()].calls += 1
            guard var plan = p[path] else { return nil }
            defer { p[path] = plan }
            return plan.next.isEmpty ? plan.always : plan.next.removeFirst()
        }
    }

    package static func clear(fd: Int32) {
        plans.withLock { _ = $0.removeValue(forKey: fd) }
    }
}
#endif
