import Dispatch
import Synchronization

/// Group commit, written once for both stores: callers hand in their batches, batches that
/// arrive while commits run wait together, and one caller (the leader) commits a whole group
/// through the store's `commit` closure, then hands each caller its result.
///
/// Up to `maxCommits` groups commit at once (SQLite: 1, its one writer; PostgreSQL: several
/// connections, so one commit's round trip overlaps another's WAL flush). A caller that finds a
/// free slot leads at once with everything waiting, its own batch included. Otherwise it waits
/// until a commit holding its batch finished, or until a finishing leader hands it the slot with
/// the batches that gathered meanwhile (its own first): so no caller works for others after its
/// own commit, and no batch waits for a busy slot while another is free. Nobody returns before
/// the commit that holds its batch.
///
/// Waiting blocks the calling thread (a semaphore): call it from threads of your own, never the
/// Swift concurrency pool.
public final class GroupCommit<Batch: Sendable, Outcome: Sendable, Failure: Error>: Sendable {
    /// Groups that commit at once.
    public let maxCommits: Int
    private let queue = Mutex(Queue())

    public init(maxCommits: Int) {
        self.maxCommits = max(1, maxCommits)
    }

    /// Batches waiting for a commit now (for tests and monitoring).
    package var waiting: Int { queue.withLock { $0.pending.count } }

    /// Commits `batch` with the next group and returns its result. `commit` writes a group (in
    /// arrival order) and returns one result per batch, in the same order; it runs on the
    /// leader's thread, which may be this caller's or another's, so every caller passes the same.
    public func submit(_ batch: Batch, commit: ([Batch]) -> [Result<Outcome, Failure>]) -> Result<Outcome, Failure> {
        let mine = Ticket(batch)
        let group = queue.withLock { q -> [Ticket]? in
            q.pending.append(mine)
            guard q.running < maxCommits else { return nil }
            q.running += 1
            return q.takePending()
        }
        if let group = group ?? mine.waitUntilFinishedOrLeading() { lead(group, commit) }
        return mine.result()
    }

    /// Commits `group` in this caller's slot, records each result, then hands the slot to the
    /// batches that gathered meanwhile (the first of them, waiting on its own thread, commits
    /// them all) or frees it.
    private func lead(_ group: [Ticket], _ commit: ([Batch]) -> [Result<Outcome, Failure>]) {
        let results = commit(group.map(\.batch))
        precondition(results.count == group.count, "a group commit returned \(results.count) results for \(group.count) batches")
        for (ticket, result) in zip(group, results) { ticket.finish(result) }
        let next = queue.withLock { q -> [Ticket]? in
            if q.pending.isEmpty {
                q.running -= 1
                return nil
            }
            return q.takePending()
        }
        if let next { next[0].lead(next) }
    }

    /// The batches waiting for a group commit and the number of group commits running.
    private struct Queue: ~Copyable {
        var pending: [Ticket] = []
        var running = 0

        /// Every waiting batch, in arrival order; the queue is left empty.
        mutating func takePending() -> [Ticket] {
            defer { pending = [] }
            return pending
        }
    }

    /// One caller's batch and what became of it.
    private final class Ticket: Sendable {
        let batch: Batch
        private let state = Mutex(State.waiting)
        /// Signalled when the result is recorded, or when the batch is handed a group to commit.
        private let wake = DispatchSemaphore(value: 0)

        private enum State {
            case waiting
            /// Handed by a finishing leader: this batch's caller commits the group (this batch first).
            case leading([Ticket])
            case finished(Result<Outcome, Failure>)
        }

        init(_ batch: Batch) { self.batch = batch }

        /// Records the result and wakes the caller. Called once, by the commit that held the batch.
        func finish(_ r: Result<Outcome, Failure>) {
            state.withLock { $0 = .finished(r) }
            wake.signal()
        }

        /// Hands `group` (this batch first) to this batch's waiting caller, which commits it.
        func lead(_ group: [Ticket]) {
            state.withLock { $0 = .leading(group) }
            wake.signal()
        }

        /// Blocks until a commit recorded this batch's result (nil) or handed it a group to commit.
        func waitUntilFinishedOrLeading() -> [Ticket]? {
            wake.wait()
            return state.withLock { s in
                if case .leading(let group) = s { return group }
                return nil
            }
        }

        /// The recorded result; called after a commit finished this batch.
        func result() -> Result<Outcome, Failure> {
            state.withLock { s in
                guard case .finished(let r) = s else { preconditionFailure("a batch's result was read before its commit finished") }
                return r
            }
        }
    }
}
