package import EventStore
import StoreSQL
import Synchronization
import SystemCalls

extension SQLiteEventStore {
    /// Owns the ingest log of the database at `path` when no other store does; reads back what it
    /// holds past `ingest_applied` (a crash left it logged but not stored) to store first. A log
    /// that ends short of the acknowledged mark, has gaps, unreadable records, or cannot be read
    /// at all is checked by `IngestRecovery`: refused, or (`acceptIngestLoss`, or nothing lost)
    /// set aside and made anew with what it still holds; `notices` gets what was done.
    static func ownIngestLog(
        _ path: String, _ options: StoreOptions, _ memory: SQLiteMemoryBounds, _ db: SQLiteDatabase, notices: inout [String]
    ) throws(StoreError) -> IngestJournal? {
        guard options.access != .readOnly else { return nil }
        let logID: String
        do throws(SQLiteError) {
            logID = try db.scalar("SELECT log_id FROM ingest_applied", as: String.self) ?? ""
        } catch {
            throw error.storeError
        }
        guard let lock = try IngestLock.acquire(database: path, handover: IngestLog.ownerHandover) else { return nil }
        // Read once the log is ours: a store of this process letting go of it (`ownerHandover`)
        // may have stored more batches until then.
        let applied: Int64, lastSeq: Int64
        do throws(SQLiteError) {
            applied = try db.scalar("SELECT position FROM ingest_applied", as: Int64.self) ?? 0
            lastSeq = try db.scalar("SELECT COALESCE(MAX(seq), 0) AS seq FROM events", as: Int64.self) ?? 0
        } catch {
            throw error.storeError
        }
        var recovery = try IngestRecovery.read(database: path, logID: logID, applied: applied, lock: lock)
        let log: IngestLog
        if let problem = recovery.problem {
            guard !recovery.losesAcknowledged || options.acceptIngestLoss else { throw problem.refusal(database: path) }
            log = try recovery.setAside(database: path, logID: logID, applied: applied, lock: lock)
            notices.append(problem.notice(database: path, keptAs: recovery.keptAs, stored: recovery.records.count))
        } else {
            log = recovery.log!
        }
        let logged = max(applied, recovery.records.last?.position ?? applied)
        var dedup: IngestDedup
        do throws(SQLiteError) {
            dedup = IngestDedup(lookup: try SQLiteDatabase(path: path, mode: .readOnly))
        } catch {
            throw error.storeError
        }
        var recovered: [IngestJournal.Logged] = []
        for r in recovery.records {
            let batch = PendingBatch(r.batch, receivedAt: r.receivedAt)
            dedup.register(batch, position: r.position)
            var outcome = batch.refusals
            outcome.stored = r.stored
            outcome.duplicates = r.duplicates
            recovered.append(IngestJournal.Logged(position: r.position, batch: batch, outcome: outcome))
        }
        recovery.log = nil
        // Sized for twice what is stored: a larger one is built when it fills.
        dedup.startBuilding(capacity: max(StoreTuning.filterMinimumKeys, 2 * Int(lastSeq) + recovered.reduce(0) { $0 + $1.batch.validCount }))
        let journal = IngestJournal(
            log: log, logID: logID, dedup: dedup, applied: applied, logged: logged, durable: options.durability == .full,
            waitingBytes: memory.waitingBytes)
        journal.queue(recovered)
        return journal
    }

    /// Stops (`true`) or resumes the thread that stores logged batches in `events`, and the
    /// appends' storing for `StoreTuning.maxStoreLag` unless `appendsKeepTheLagBound`: for tests
    /// of what reads, restarts and crashes find while batches wait in the log.
    func pauseIngestStoring(_ paused: Bool, appendsKeepTheLagBound: Bool = false) {
        ingest?.paused.store(paused, ordering: .relaxed)
        ingest?.lagBoundPaused.store(paused && !appendsKeepTheLagBound, ordering: .relaxed)
        ingest?.wakeStoring()
    }

    /// Logged batches not yet stored in `events` (for tests).
    var batchesWaitingInLog: Int { ingest?.backlog.withLock { $0.waiting.count } ?? 0 }

    /// Lookups in `events` the dedup made so far, and whether its filter of stored keys answers
    /// yet (for tests).
    var dedupLookups: (count: Int, filterBuilt: Bool) {
        ingest?.writer.withLock { ($0.dedup.lookups, $0.dedup.filter != nil) } ?? (0, false)
    }

    /// Where ingest stands, read without storing anything first (monitoring, `ingest-bench
    /// --sustain`): the last batch logged and the last stored in `events` (log positions), the
    /// last event stored (`seq`), and the lower of the rollups' watermarks.
    package func ingestPositions() throws(StoreError) -> (logged: Int64, applied: Int64, lastSeq: Int64, watermark: Int64) {
        let (logged, applied) = ingest?.backlog.withLock { ($0.logged, $0.applied) } ?? (0, 0)
        let watermarks = RollupPart.allCases.map { "(SELECT seq FROM \($0.watermark))" }.joined(separator: ", ")
        let query = SQLQuery(raw: "SELECT COALESCE(MAX(seq), 0) AS last, MIN(\(watermarks)) AS watermark FROM events")
        let (last, watermark) = try lockedAsStored { db throws(SQLiteError) in
            try db.query(query) { r throws(SQLDecodingError) in
                (try r.decode("last", as: Int64.self), try r.decode("watermark", as: Int64?.self) ?? 0)
            }.first ?? (0, 0)
        }
        return (logged, applied, last, watermark)
    }

    /// Logs `mine` (`IngestJournal.log`) once `events` is within the journal's bounds: behind,
    /// the appending threads store waiting batches themselves (`StoreTuning.maxStoreLag`,
    /// `SQLiteMemoryBounds.waitingBytes`), so the `ACK`s go at the pace of storing and `events` stays within 1 s
    /// of every one.
    func appendThroughLog(_ mine: IngestJournal.LogRequest, _ journal: IngestJournal) throws(StoreError) -> BatchOutcome {
        if !journal.filterStarted.load(ordering: .relaxed),
            journal.filterStarted.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        {
            startFilterBuild(journal)
        }
        let lagBound = !journal.lagBoundPaused.load(ordering: .relaxed)
        while journal.backlog.withLock({ $0.mustStoreFirst(now: .now, lagBound: lagBound) }) {
            if try storeLogged(limit: StoreTuning.batchesPerStore) == 0 { break }
        }
        return try journal.log(mine, database: path)
    }

    /// Stores the first `limit` logged batches waiting in `events`, in one transaction that also
    /// moves `ingest_applied` past them; returns how many it stored (0: none waited). Called by
    /// the `ingest-store` thread, by reads catching up, and by appends far behind; one at a time
    /// (the store's connection lock), in log order.
    func storeLogged(limit: Int) throws(StoreError) -> Int {
        guard let journal = ingest else { return 0 }
        let result: Result<Int, SQLiteError>? = connection.withLock { c in
            guard let db = c else { return nil }
            do throws(SQLiteError) {
                return .success(
                    try journal.drain(limit: limit) { (batches, last) throws(SQLiteError) in
                        try RollupFile.beginWritingEvents(on: db)
                        do throws(SQLiteError) {
                            var zones = EventZones.Recorder()
                            var lastSeq = (try db.scalar(Self.lastSeq, as: Int64?.self) ?? nil) ?? 0
                            var stored: [StoredRun] = []
                            for logged in batches {
                                if let run = try logged.batch.write(to: db, lastSeq: &lastSeq, zones: &zones, acknowledged: logged.outcome) {
                                    stored.append(run)
                                }
                            }
                            try zones.write(to: db)
                            try db.run("UPDATE ingest_applied SET position = \(last)")
                            try db.execute("COMMIT")
                            // Committed: the rollup workers may apply these rows from memory (in
                            // seq order: drains run one at a time, under this lock).
                            for worker in rollupWorkers { worker.handoff.offer(stored) }
                        } catch {
                            try? db.execute("ROLLBACK")
                            throw error
                        }
                    })
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) {
            let stored = try result.get()
            if stored > 0 { maybeRebuildFilter(journal) }
            return stored
        } catch {
            throw StoreError(
                error.storeError.code,
                "could not store acknowledged batches from the ingest log \(path)\(IngestLog.suffix) in the events table: \(error.description); they stay in the log and are stored once this succeeds")
        }
    }

    /// The highest seq stored (the rightmost rowid: one B-tree descent).
    static let lastSeq: SQLQuery = "SELECT MAX(seq) FROM events"

    /// Brings `events` up to every batch logged when called, so a read counts every acknowledged
    /// event. The owner of the log stores what waits itself. Any other store waits for the owner
    /// to store up to the log's last position, and fails saying why when nobody owns the log (a
    /// collector stopped by a crash leaves batches in it; the next `serve` stores them first) or
    /// the owner has not stored them in `ownerWait`. A read-only store (a command: `report`,
    /// `funnel`, …) waits at its first read only: it counts every event acknowledged before that,
    /// and its later reads do not each wait for the owner's next round (up to 250 ms under load).
    func ingestCurrent() throws(StoreError) {
        if let journal = ingest {
            let target = journal.backlog.withLock { $0.logged }
            while journal.backlog.withLock({ $0.applied }) < target {
                if try storeLogged(limit: StoreTuning.batchesPerStore) == 0 { break }
            }
            return
        }
        if readOnly, readCaughtUp.load(ordering: .acquiring) { return }
        try waitForOwner()
        if readOnly { readCaughtUp.store(true, ordering: .releasing) }
    }

    /// Waits until the log's owner stored every batch logged when called (see `ingestCurrent`).
    private func waitForOwner() throws(StoreError) {
        guard let target = try IngestLog.lastPosition(database: path) else { return }
        let clock = ContinuousClock()
        let deadline = clock.now + Self.ownerWait
        var applied = try appliedPosition()
        while applied < target {
            if !(try IngestLog.isOwned(database: path)) {
                applied = try appliedPosition()  // its owner may have stored them and closed meanwhile
                if applied >= target { return }
                throw StoreError(
                    .unavailable,
                    "the ingest log \(path)\(IngestLog.suffix) holds acknowledged batches up to \(target), but \(path) holds them only up to \(applied), and no collector owns the log to store them (one stopped without closing it, by a crash or a kill); start 'autotrack-collector serve --db \(path)' (it stores them first), then try again")
            }
            if clock.now > deadline {
                throw StoreError(
                    .unavailable,
                    "the collector that owns the ingest log \(path)\(IngestLog.suffix) has not stored its acknowledged batches up to \(target) in \(path) within \(Self.ownerWait) (it holds them up to \(applied)); it may be overloaded: try again later")
            }
            Posix.sleep(.milliseconds(10))
            applied = try appliedPosition()
        }
    }

    /// How long a store that does not own the log waits for its owner to store what it logged.
    static let ownerWait = Duration.seconds(60)

    /// `ingest_applied`: every logged batch up to it is in `events`.
    private func appliedPosition() throws(StoreError) -> Int64 {
        try lockedAsStored { db throws(SQLiteError) in try db.scalar("SELECT position FROM ingest_applied", as: Int64.self) ?? 0 }
    }

    /// Builds a larger filter of stored keys on a thread of its own when the one in use is full,
    /// or the first one when none is built yet (`building` set at open).
    private func maybeRebuildFilter(_ journal: IngestJournal) {
        let start = journal.writer.withLock { w -> Bool in
            if w.dedup.building == nil, w.dedup.filterFull, let filter = w.dedup.filter {
                w.dedup.startBuilding(capacity: filter.capacity * 4)
                return true
            }
            return false
        }
        if start { startFilterBuild(journal) }
    }

    /// Reads every stored key into the filter being built, on a thread of its own and a
    /// read-only connection, 65,536 per read; then it answers instead of the one in use.
    func startFilterBuild(_ journal: IngestJournal) {
        let path = path
        journal.startFilterBuild { [weak journal] thread in
            try? Posix.setCurrentThreadNice(StoreTuning.backgroundNice)
            guard let db = try? SQLiteDatabase(path: path, mode: .readOnly) else { return }
            var after: Int64 = 0
            while true {
                guard let journal, !thread.isStopping else { return }
                var hashes: [UInt64] = []
                var last = after
                var appKey: [UInt8] = []
                var key = EventKeyHash(appKey: "")
                do throws(SQLiteError) {
                    try db.stream("SELECT seq, app_key, id FROM events WHERE seq > \(after) ORDER BY seq LIMIT 65536") { r in
                        last = r.int64(0)
                        if let k = r.bytes(1), !k.elementsEqual(appKey) {
                            appKey = Array(k)
                            key = EventKeyHash(appKey: k)
                        }
                        hashes.append(key.hash(id: r.bytes(2) ?? UnsafeRawBufferPointer(start: nil, count: 0)))
                        return true
                    }
                } catch {
                    return  // the store closed or the file went: the filter stays unbuilt, lookups stay exact
                }
                journal.writer.withLock { w in
                    w.dedup.addBuilt(hashes)
                    if hashes.isEmpty { w.dedup.finishBuilding() }
                }
                if hashes.isEmpty { return }
                after = last
            }
        }
    }
}
