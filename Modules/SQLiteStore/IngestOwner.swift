import Dispatch
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
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// Set by tests: the thread stores nothing (reads and appends far behind still do).
    let paused = Atomic<Bool>(false)
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
        /// How fast appends arrive (for telling a burst).
        var rate = AppendRate()
    }

    /// Events waiting beyond which an append stores waiting batches itself before logging its
    /// own: the backlog's memory stays bounded (~300 bytes an event) however far behind the
    /// thread is.
    static let maxWaitingEvents = 262_144
    /// Batches per transaction of `events`, at most.
    static let batchesPerStore = 64

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

    /// Queues logged batches, in log order, to be stored: just logged (`arriving`: they count in
    /// the appends' rate), or read back from the log at open.
    func queue(_ logged: [Logged], arriving: Bool) {
        backlog.withLock { b in
            for l in logged {
                b.waiting.append(l)
                b.events += l.batch.validCount
            }
            if arriving { b.rate.logged(logged.reduce(0) { $0 + $1.batch.validCount }, at: .now) }
            b.logged = max(b.logged, logged.last?.position ?? b.logged)
        }
    }

    /// Moves the acknowledged mark to `position`, durable in the log now, before its `ACK`.
    func acknowledge(through position: Int64) throws(StoreError) {
        try lock.acknowledge(through: position, logID: logID, at: Posix.wallClockMillis())
    }

    /// Wakes the storing thread: batches wait.
    func wakeStoring() { wake.signal() }

    /// How often the thread stores what waits, at most (from the start of one round to the
    /// next), unless its last transaction came full (more wait: the next follows at once). As for
    /// the rollup workers: fewer, larger transactions cost less per event (one sync each), and the
    /// thread keeps off the processor while a burst of appends runs; reads never wait for it.
    static let period = Duration.milliseconds(250)

    /// Appends faster than this (events a second) are a burst: more than four times what the
    /// rollup workers sustain (~45,000 a second on this project's benchmark machine), so storing
    /// them now would not keep the derived tables current; it would only take the processor from
    /// the appends, whose `ACK`s wait for it. The log holds the burst and the thread stores it
    /// once the appends slow down (`deferringForBurst`, over windows of `AppendRate.window`); the
    /// rollup workers wait for the end of it too. Four times, not two: a steady load whose
    /// batches arrive together after a stall of the disk must not pass for a burst (the rounds
    /// it would skip add to the lag).
    static let burstRate = 200_000
    /// `burstRate`, unless a test set another (`SQLiteEventStore.setIngestBurstRate`).
    let burstRate = Atomic<Int>(IngestOwner.burstRate)
    /// Events waiting beyond which the thread stores even during a burst: the bound at which
    /// the appends store too (`maxWaitingEvents`), so the log holds a burst of up to that many
    /// events (~80 MB of waiting rows) with the processor left to the appends; a longer one is
    /// stored while it goes on, at the pace of storing.
    static let maxDeferredEvents = maxWaitingEvents

    /// Starts the thread that stores logged batches in `events` for `store`, which it does not keep alive.
    func start(_ store: SQLiteEventStore) {
        Posix.startThread(name: "ingest-store") { [weak store, self] in
            // Behind the appends, as the rollup workers are: a read stores what is left itself.
            try? Posix.setCurrentThreadNice(RollupWorker.nice)
            let clock = ContinuousClock()
            var roundStart = clock.now
            var pause = Duration.milliseconds(10)
            while !stopped.load(ordering: .relaxed) {
                _ = wake.wait(timeout: .now() + .nanoseconds((roundStart + Self.period - clock.now).waitNanoseconds))
                roundStart = clock.now
                lock.syncMark()
                if stopped.load(ordering: .relaxed) { return }
                if paused.load(ordering: .relaxed) { continue }
                if deferringForBurst() { continue }
                guard let store else { return }
                do throws(StoreError) {
                    // Again at once while transactions come full, unless a burst began meanwhile.
                    while try store.storeLogged(limit: Self.batchesPerStore) == Self.batchesPerStore, !stopped.load(ordering: .relaxed),
                        !deferringForBurst()
                    {}
                    pause = .milliseconds(10)
                } catch {
                    if error.code == .closed { return }
                    // Busy or full: again after a pause (reads meanwhile try themselves and say why).
                    Posix.sleep(pause)
                    pause = min(pause * 2, .seconds(2))
                }
            }
        }
    }

    /// Whether the appends come as a burst now: faster than `burstRate` over the last whole
    /// window of `AppendRate`. The storing thread and the rollup workers ask before each round.
    var isBursting: Bool {
        let rate = burstRate.load(ordering: .relaxed)
        return backlog.withLock { $0.rate.exceeds(rate, at: .now) }
    }

    /// Whether this round leaves what waits in the log: a burst goes on and fewer than
    /// `maxDeferredEvents` wait.
    private func deferringForBurst() -> Bool {
        let waiting = backlog.withLock { $0.events }
        return waiting > 0 && waiting < Self.maxDeferredEvents && isBursting
    }

    /// Ends the thread (after the transaction it is in, if any).
    func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
    }

    /// Closes the log (its lock goes: another store may own it). Idempotent.
    func close() {
        stop()
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

    /// True once stopped (closing).
    var isStopped: Bool { stopped.load(ordering: .relaxed) }
}
