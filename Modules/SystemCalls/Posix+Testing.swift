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
/// `Posix.writeAll` and `Posix.accept`; cleared when the fd is closed. Not compiled in release.
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

    package static func clear(fd: Int32) {
        plans.withLock { _ = $0.removeValue(forKey: fd) }
    }
}
#endif
