import EventStore
import Synchronization
import SystemCalls

/// The ingest journal of a store that owns the ingest log (IngestLog.swift): the log and the
/// dedup under one lock (the group commit's), the batches logged but not yet stored in `events`,
/// and the thread that stores them. Its API is two calls: `log(batch)` returns once the batch is
/// durable and may be acknowledged; `drain(limit:)` hands the batches waiting, in log order, to
/// whoever stores them in `events`.
///
/// An append is acknowledged once its batch is durable in the log: the dedup counts its
/// duplicates, the group commit writes the group's records in one transaction of the log, and
/// one shared sync of the log's WAL (`SharedLogSync`) makes them durable. The batch's rows then
/// go into `events` on the `ingest-store` thread, in order, many batches per transaction, each
/// transaction moving `ingest_applied` past what it stored. Every read of the store first brings
/// `events` up to every batch logged when it started (`SQLiteEventStore.ingestCurrent`), so an
/// answer counts every acknowledged event, as before.
final class IngestJournal: Sendable {
    /// Batches waiting for the next group commit to the log, one commit at a time.
    let commits = GroupCommit<LogRequest, LoggedBatchResult, StoreError>(maxCommits: 1)
    /// The log and the dedup, used by the group commit's leader (one at a time).
    let writer: Mutex<Writer>
    /// The log's syncs, shared by the groups that committed meanwhile; nil at `Durability.normal`.
    let logSync: SharedLogSync?
    /// Batches logged and not yet stored, and how far `events` is.
    let backlog: Mutex<Backlog>
    /// Stores logged batches in `events` (`start`).
    private let storing = ServiceThread(threadName: "ingest-store")
    /// The threads that built filters of stored keys (`startFilterBuild`).
    private let filterBuilds = Mutex<[ServiceThread]>([])
    /// Set by tests: the thread stores nothing (reads and appends far behind still do).
    let paused = Atomic<Bool>(false)
    /// Set by tests with `paused`: appends store nothing either for `StoreTuning.maxStoreLag`
    /// (only for `SQLiteMemoryBounds.waitingBytes`), so batches stay in the journal however long they wait.
    let lagBoundPaused = Atomic<Bool>(false)
    /// Set by the first append, which starts building the filter of stored keys: a store that
    /// never appends (`prune`, `rebuild-rollups`) never reads every key.
    let filterStarted = Atomic<Bool>(false)

    struct Writer: ~Copyable {
        var log: IngestLog?
        var dedup: IngestDedup
        /// The position the next logged batch gets.
        var nextPosition: Int64
    }

    /// A batch logged, waiting for its rows to be stored.
    struct Logged: Sendable {
        let position: Int64
        let batch: PendingBatch
        let outcome: BatchOutcome
        /// When it was queued (logged, or read back from the journal at open).
        var queuedAt = ContinuousClock.now
    }

    struct Backlog: ~Copyable {
        /// In log order; a stored batch goes at once (its rows' memory with it).
        var waiting: [Logged] = []
        /// Every batch up to this position is stored in `events` (and `ingest_applied` says so).
        var applied: Int64
        /// The last position logged.
        var logged: Int64
        /// Valid events waiting (for the disk's reserve).
        var events = 0
        /// Bytes of the batches waiting (`PendingBatch.heldBytes`), for the bound on memory.
        var bytes = 0
        /// `SQLiteMemoryBounds.waitingBytes`.
        let maxBytes: Int

        /// Whether an append must store waiting batches before logging its own: the oldest
        /// waited longer than `StoreTuning.maxStoreLag` (unless `lagBound` is off), or more than
        /// `maxBytes` wait.
        func mustStoreFirst(now: ContinuousClock.Instant, lagBound: Bool) -> Bool {
            guard let oldest = waiting.first else { return false }
            return bytes > maxBytes || (lagBound && now - oldest.queuedAt > StoreTuning.maxStoreLag)
        }
    }

    /// The log's lock, which keeps the acknowledged mark (`IngestMark`).
    let lock: IngestLock
    /// The free space an append keeps for storing what the log holds.
    let diskReserve: DiskReserve
    /// The database's `ingest_applied.log_id`, which the mark names.
    let logID: String

    init(
        log: sending IngestLog, logID: String, dedup: consuming sending IngestDedup, applied: Int64, logged: Int64, durable: Bool,
        waitingBytes: Int
    ) {
        let logPath = log.path
        lock = log.lock
        self.logID = logID
        diskReserve = DiskReserve(database: String(logPath.dropLast(IngestLog.suffix.count)))
        writer = Mutex(Writer(log: log, dedup: dedup, nextPosition: logged + 1))
        backlog = Mutex(Backlog(applied: applied, logged: logged, maxBytes: waitingBytes))
        let file = log.file
        logSync = durable ? SharedLogSync(sync: file.sync) : nil
    }

    /// Queues logged batches, in log order, to be stored: just logged (`log`), or read back from
    /// the log at open.
    func queue(_ logged: [Logged]) {
        backlog.withLock { b in
            for l in logged {
                b.waiting.append(l)
                b.events += l.batch.validCount
                b.bytes += l.batch.heldBytes
            }
            b.logged = max(b.logged, logged.last?.position ?? b.logged)
        }
    }


    // MARK: log(batch) → durable

    /// A batch to log: its rows, and its record in the log (`LoggedBatch`).
    struct LogRequest: Sendable {
        let batch: PendingBatch
        let record: [UInt8]
    }

    /// A batch in a logged group: its counts, and the group's number for `SharedLogSync`.
    struct LoggedBatchResult: Sendable {
        var outcome: BatchOutcome
        var group: UInt64
        /// The batch's position in the log.
        var position: Int64
    }

    /// Logs `request` with the group that commits with it (`commits`) and returns its counts once
    /// the log holds it durably and the acknowledged mark is past it: what may be acknowledged.
    /// Refused (`full`) while the disk lacks the space to store it and what waits in `events`.
    func log(_ request: LogRequest, database path: String) throws(StoreError) -> BatchOutcome {
        try diskReserve.check(recordBytes: request.record.count, waitingEvents: backlog.withLock { $0.events }, database: path)
        let logged = try commits.submit(request) { group in logGroup(group, database: path) }.get()
        try logSync?.waitUntilDurable(through: logged.group)
        try lock.acknowledge(through: logged.position, logID: logID, at: Posix.wallClockMillis())
        return logged.outcome
    }

    /// Counts and logs `group` in one transaction of the log; queues its batches to be stored.
    private func logGroup(_ group: [LogRequest], database path: String) -> [Result<LoggedBatchResult, StoreError>] {
        let applied = backlog.withLock { $0.applied }
        let result = writer.withLock { w -> Result<[Logged], StoreError> in
            guard let log = w.log else { return .failure(StoreError(.closed, "the database \(path) was closed")) }
            let first = w.nextPosition
            do throws(StoreError) {
                w.dedup.prune(through: applied)
                var logged: [Logged] = []
                var records: [(position: Int64, record: [UInt8], outcome: BatchOutcome)] = []
                for (i, request) in group.enumerated() {
                    let (batch, record) = (request.batch, request.record)
                    let position = first + Int64(i)
                    var outcome = batch.refusals
                    do throws(SQLiteError) {
                        (outcome.stored, outcome.duplicates) = try w.dedup.count(batch, position: position)
                    } catch {
                        throw error.storeError
                    }
                    logged.append(Logged(position: position, batch: batch, outcome: outcome))
                    records.append((position, record, outcome))
                }
                try log.append(records, deletingThrough: applied)
                w.nextPosition = first + Int64(group.count)
                return .success(logged)
            } catch {
                w.dedup.forget(from: first)
                return .failure(error)
            }
        }
        switch result {
        case .failure(let error): return group.map { _ in .failure(error) }
        case .success(let logged):
            queue(logged)
            let number = logSync?.committed() ?? 0
            return logged.map { .success(LoggedBatchResult(outcome: $0.outcome, group: number, position: $0.position)) }
        }
    }

    // MARK: drain

    /// Hands the first `limit` batches waiting, in log order, and the position of the last, to
    /// `store`, which stores them in `events` and moves `ingest_applied` to that position in one
    /// transaction; once it returns they leave the backlog (their memory with them). Returns how
    /// many it handed (0: none waited). One drain at a time: the caller holds the store's
    /// connection.
    func drain<E: Error>(limit: Int, _ store: (_ batches: [Logged], _ through: Int64) throws(E) -> Void) throws(E) -> Int {
        let batches = backlog.withLock { b in Array(b.waiting.prefix(limit)) }
        guard let last = batches.last else { return 0 }
        try store(batches, last.position)
        backlog.withLock { b in
            b.waiting.removeFirst(batches.count)
            b.applied = last.position
            b.events -= batches.reduce(0) { $0 + $1.batch.validCount }
            b.bytes -= batches.reduce(0) { $0 + $1.batch.heldBytes }
        }
        return batches.count
    }

    /// Wakes the storing thread: batches wait.
    func wakeStoring() { storing.wake() }

    /// Starts the thread that stores logged batches in `events` for `store`, which it does not keep alive.
    func start(_ store: SQLiteEventStore) {
        storing.start { [weak store, self] thread in
            // At the appends' priority, not the derived data's: `events` must follow every ACK
            // within a second, and the appends wait for this thread's lock when it stores.
            let clock = ContinuousClock()
            var roundStart = clock.now
            var pause = Duration.milliseconds(10)
            while true {
                let going = thread.pause(for: roundStart + StoreTuning.storePeriod - clock.now)
                roundStart = clock.now
                lock.syncMark()
                guard going else { return }
                if paused.load(ordering: .relaxed) { continue }
                guard let store else { return }
                do throws(StoreError) {
                    // Again at once while transactions come full.
                    while try store.storeLogged(limit: StoreTuning.batchesPerStore) == StoreTuning.batchesPerStore, !thread.isStopping {}
                    pause = .milliseconds(10)
                } catch {
                    if error.code == .closed { return }
                    // Busy or full: again after a pause (reads meanwhile try themselves and say why).
                    guard thread.pause(for: pause) else { return }
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }
    }

    /// Starts a thread building the dedup's filter (`SQLiteEventStore.startFilterBuild`); it
    /// stops with the storing thread.
    func startFilterBuild(_ body: @escaping @Sendable (ServiceThread) -> Void) {
        let thread = ServiceThread(threadName: "ingest-filter")
        filterBuilds.withLock { $0.append(thread) }
        thread.start(running: body)
    }

    /// Ends the threads after the transaction each is in, waiting up to `grace` for them;
    /// returns whether they ended. What is not stored stays in the journal, for `close` (or the
    /// next owner) to store.
    @discardableResult
    func stop(grace: Duration) -> Bool {
        let threads = [storing] + filterBuilds.withLock { $0 }
        for thread in threads { thread.requestStop(grace: grace) }
        return threads.allSatisfy { $0.waitUntilStopped(timeout: max(.zero, grace)) }
    }

    /// Closes the log (its lock goes: another store may own it). Idempotent.
    func close() {
        stop(grace: StoreTuning.workerStopGrace)
        let applied = backlog.withLock { $0.applied }
        let (log, lookup) = writer.withLock { w -> (IngestLog?, SQLiteDatabase?) in
            defer { w.log = nil }
            // What `events` holds leaves the log: a clean stop leaves it empty.
            try? w.log?.delete(through: applied)
            return (w.log, w.dedup.close())
        }
        log?.close()
        _ = lookup  // released here, outside the lock
        lock.release()
    }
}
