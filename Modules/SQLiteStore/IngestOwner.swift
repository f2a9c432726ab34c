import EventStore
import Synchronization
import SystemCalls

/// What a store that owns the ingest log (IngestLog.swift) keeps: the log and the dedup under one
/// lock (the group commit's), the batches logged but not yet stored in `events`, and the thread
/// that stores them.
///
/// An append is acknowledged once its batch is durable in the log: the dedup counts its
/// duplicates, the group commit writes the group's records in one transaction of the log, and
/// one shared sync of the log's WAL (`SharedLogSync`) makes them durable. The batch's rows then
/// go into `events` on the `ingest-store` thread, in order, many batches per transaction, each
/// transaction moving `ingest_applied` past what it stored. Every read of the store first brings
/// `events` up to every batch logged when it started (`SQLiteEventStore.ingestCurrent`), so an
/// answer counts every acknowledged event, as before.
final class IngestOwner: Sendable {
    /// The log and the dedup, used by the group commit's leader (one at a time).
    let writer: Mutex<Writer>
    /// The log's syncs, shared by the groups that committed meanwhile; nil at `Durability.normal`.
    let logSync: SharedLogSync?
    private let logFile: WriteAheadLogFile?
    /// Batches logged and not yet stored, and how far `events` is.
    let backlog: Mutex<Backlog>
    /// Stores logged batches in `events` (`start`).
    private let storing = ServiceThread(threadName: "ingest-store")
    /// The threads that built filters of stored keys (`startFilterBuild`).
    private let filterBuilds = Mutex<[ServiceThread]>([])
    /// Set by tests: the thread stores nothing (reads and appends far behind still do).
    let paused = Atomic<Bool>(false)
    /// Set by tests with `paused`: appends store nothing either for `StoreTuning.maxStoreLag`
    /// (only for `maxWaitingEvents`), so batches stay in the journal however long they wait.
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
        /// Valid events waiting (for the bound on memory).
        var events = 0

        /// Whether an append must store waiting batches before logging its own: the oldest
        /// waited longer than `StoreTuning.maxStoreLag` (unless `lagBound` is off), or more than
        /// `maxWaitingEvents` wait.
        func mustStoreFirst(now: ContinuousClock.Instant, lagBound: Bool) -> Bool {
            guard let oldest = waiting.first else { return false }
            return events > StoreTuning.maxWaitingEvents || (lagBound && now - oldest.queuedAt > StoreTuning.maxStoreLag)
        }
    }

    /// The log's lock, which keeps the acknowledged mark (`IngestMark`).
    let lock: IngestLock
    /// The free space an append keeps for storing what the log holds.
    let diskReserve: DiskReserve
    /// The database's `ingest_applied.log_id`, which the mark names.
    let logID: String

    init(log: sending IngestLog, logID: String, dedup: consuming sending IngestDedup, applied: Int64, logged: Int64, durable: Bool) {
        let logPath = log.path
        lock = log.lock
        self.logID = logID
        diskReserve = DiskReserve(database: String(logPath.dropLast(IngestLog.suffix.count)))
        writer = Mutex(Writer(log: log, dedup: dedup, nextPosition: logged + 1))
        backlog = Mutex(Backlog(applied: applied, logged: logged))
        if durable {
            let file = WriteAheadLogFile(database: logPath)
            logFile = file
            logSync = SharedLogSync(sync: file.sync)
        } else {
            logFile = nil
            logSync = nil
        }
    }

    /// Queues logged batches, in log order, to be stored: just logged, or read back from the
    /// log at open.
    func queue(_ logged: [Logged]) {
        backlog.withLock { b in
            for l in logged {
                b.waiting.append(l)
                b.events += l.batch.validCount
            }
            b.logged = max(b.logged, logged.last?.position ?? b.logged)
        }
    }

    /// Moves the acknowledged mark to `position`, durable in the log now, before its `ACK`.
    func acknowledge(through position: Int64) throws(StoreError) {
        try lock.acknowledge(through: position, logID: logID, at: Posix.wallClockMillis())
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
        _ = (log, lookup)  // released here, outside the lock
        logFile?.close()
        lock.release()
    }
}
