import EventModel
public import EventStore
import Foundation
import StoreSQL
import Synchronization

/// The collector's SQLite database: events, rejected events, batches and published rule sets.
///
/// One connection per store, guarded by a mutex: SQLite has one writer at a time anyway, and a
/// batch is one transaction. Readers (reports) open their own store, read-only; WAL lets them
/// read while the server writes. A writable store also runs a `RollupWorker` thread that applies
/// the stored events to the rollup tables behind the watermark (SQLiteEventStore+Rollups.swift).
public final class SQLiteEventStore: CollectorStore {
    public let path: String
    public var location: String { path }
    /// nil once closed.
    let connection: Mutex<SQLiteDatabase?>
    /// The ingest log, when this store owns it (IngestLog.swift, IngestJournal.swift, SQLiteEventStore+Ingest.swift):
    /// a writable store does unless another owns it already; only the owner appends.
    let ingest: IngestJournal?
    /// Opened with `StoreAccess.readOnly`.
    let readOnly: Bool
    /// A read-only store waited for the log's owner once, at its first read (`ingestCurrent`).
    let readCaughtUp = Atomic<Bool>(false)
    /// With `Durability.full`: the ingest log's syncs, shared by the groups logged meanwhile.
    var logSync: SharedLogSync? { ingest?.logSync }
    /// Apply the stored events to the rollups behind each file's watermark, one per rollups file
    /// (in `RollupPart` order), at once, each on a connection of its own; empty when read-only.
    let rollupWorkers: [RollupWorker]
    /// True when a read-only store found nobody moving the watermark (no collector running):
    /// its reports then read the events past it at once instead of waiting (`rollupsCurrent`).
    let watermarkStalled = Atomic<Bool>(false)
    /// What opening repaired, each a sentence for the operator: a damaged ingest log or rollups
    /// file kept aside and made anew (`serve` prints them on standard error).
    public let openingNotices: [String]
    /// What `storeSnapshot` keeps (`StoreOptions.snapshotBytes`).
    let snapshotBytes: StoreOptions.SnapshotBytes

    /// Opens the database as `options.access` says: creating and migrating it, migrating an
    /// existing one, or reading one at the current schema without writing anything; a writable
    /// store holds at most `memory` of batches for work not done yet.
    public init(path: String, options: StoreOptions = StoreOptions(), memory: SQLiteMemoryBounds = SQLiteMemoryBounds()) throws(StoreError) {
        if options.access != .create, !FileManager.default.fileExists(atPath: path) {
            throw StoreError(.notFound, "no database at \(path); give the --db file that 'serve' writes")
        }
        var notices: [String] = []
        let db = try Self.open(path, options, notices: &notices)
        let ingest = try Self.ownIngestLog(path, options, memory, db, notices: &notices)
        openingNotices = notices
        snapshotBytes = options.snapshotBytes
        self.connection = Mutex(db)
        var rollupWorkers: [RollupWorker] = []
        if options.access != .readOnly {
            for part in RollupPart.allCases { rollupWorkers.append(RollupWorker(part, connection: try Self.openRollupConnection(path, part), handoffBytes: memory.handoffBytes)) }
        }
        self.rollupWorkers = rollupWorkers
        self.path = path
        self.ingest = ingest
        readOnly = options.access == .readOnly
        for worker in rollupWorkers { worker.start(self) }
        if let ingest {
            ingest.start(self)
            ingest.wakeStoring()
        }
    }

    /// A store released without `close` closes: its logged batches are stored, and the ingest
    /// log's lock goes with it, for the next store to own.
    deinit { close() }

    private static func open(_ path: String, _ options: StoreOptions, notices: inout [String]) throws(StoreError) -> SQLiteDatabase {
        let migrating = options.access != .readOnly
        if migrating, FileManager.default.fileExists(atPath: path) { notices += try RollupFile.setAsideDamaged(database: path) }
        let connection: SQLiteDatabase
        let problem: StoreError?
        do throws(SQLiteError) {
            let mode: SQLiteOpenMode =
                switch options.access {
                case .create: .readWriteCreate
                case .existing: .readWriteExisting
                case .readOnly: .readOnly
                }
            // A reader reads the rollup tables by their plain names; a writable store attaches
            // the files itself once it knows the database is ours.
            connection = mode == .readOnly ? try RollupFile.openReader(path) : try SQLiteDatabase(path: path, mode: mode)
            // Refuse a foreign or newer file before anything (WAL, a migration) changes it.
            problem = try Schema.problem(connection, creating: options.access == .create, migrating: migrating)
        } catch {
            throw error.storeError
        }
        if let problem { throw problem }
        guard migrating else { return connection }
        do throws(SQLiteError) {
            // WAL: readers never block the writer, and a commit is one append to the log.
            let journal = try connection.scalar("PRAGMA journal_mode = WAL", as: String.self)
            guard journal?.lowercased() == "wal" else {
                throw SQLiteError(
                    code: SQLiteCode.error,
                    message: "could not switch \(path) to WAL (got \(journal ?? "nothing"))",
                    sql: "PRAGMA journal_mode = WAL")
            }
            try connection.execute("PRAGMA synchronous = \(options.durability == .full ? "FULL" : "NORMAL")")
            try connection.execute("PRAGMA wal_autocheckpoint = \(StoreTuning.checkpointPages)")
            // Statement journals (the originals of the pages a statement or savepoint changes)
            // in memory: at most one batch's or one rollup chunk's pages, freed at its end.
            try connection.execute("PRAGMA temp_store = MEMORY")
            try connection.execute("PRAGMA foreign_keys = ON")
            try RollupFile.attach(to: connection, database: path, writable: true)
            try Schema.migrate(connection)
            try RollupFile.check(connection)
        } catch {
            throw error.storeError
        }
        return connection
    }

    /// The connection that applies the rollups of `part` (its `RollupWorker`'s): it reads the
    /// events and writes only that part's file, whose pages it caches (the events' pages it reads
    /// once, in order; the other file it never reads).
    private static func openRollupConnection(_ path: String, _ part: RollupPart) throws(StoreError) -> SQLiteDatabase {
        do throws(SQLiteError) {
            let db = try SQLiteDatabase(path: path, mode: .readWriteExisting)
            try db.execute("PRAGMA main.cache_size = -2048")
            try db.execute("PRAGMA temp_store = MEMORY")
            try RollupFile.attach(to: db, database: path, writable: true)
            for other in RollupPart.allCases {
                let kib = other == part ? StoreTuning.writerCacheKiB : 256
                try db.execute("PRAGMA \(other.schema).cache_size = -\(kib)")
            }
            try db.execute("PRAGMA wal_autocheckpoint = \(StoreTuning.checkpointPages)")
            return db
        } catch {
            throw error.storeError
        }
    }

    public func schemaVersion() throws(StoreError) -> Int {
        try locked { db throws(SQLiteError) in try db.scalar("PRAGMA user_version", as: Int.self) ?? 0 }
    }

    /// The schema version this build writes.
    public static var currentSchemaVersion: Int { Int(Schema.currentVersion) }

    /// The files SQLite keeps beside a database (`PATH-wal`, `PATH-shm`, `PATH-journal`): the log
    /// holds committed transactions until a checkpoint, so overwriting one loses events.
    public static let companionSuffixes = ["-wal", "-shm", "-journal"] + RollupFile.suffixes + IngestLog.suffixes

    /// Validates and stores a batch; returns only once the ingest log holds it durably (as
    /// `StoreOptions.durability` says), so the outcome may be acknowledged. A repeated
    /// `(appKey, id)` is counted, not stored again; an invalid event is kept in `rejected` with
    /// its reason. A batch is atomic: all of it or none.
    ///
    /// Validation and row building run on the caller's thread, in parallel with other callers.
    /// Then group commit (`GroupCommit`): batches that arrive while a group is being logged wait,
    /// and the next group counts every waiting batch's repeats (`IngestDedup`) and writes them to
    /// the ingest log in one transaction. At `Durability.full` that COMMIT does not sync: one
    /// sync of the log (`SharedLogSync`) makes every group logged before it durable, and nobody
    /// returns before a sync that started after its group's COMMIT, or when that sync failed.
    /// The rows go into `events` behind, on the store's `ingest-store` thread; every read waits
    /// for them first (SQLiteEventStore+Ingest.swift).
    public func append(_ batch: EventBatch) throws(StoreError) -> BatchOutcome {
        guard let ingest else {
            if readOnly {
                throw StoreError(.readOnly, "the database \(path) is open read-only: events are stored by the collector ('serve')")
            }
            throw StoreError(
                .unavailable,
                "another store owns the ingest log of \(path) (\(path)\(IngestLog.lockSuffix) is locked: a collector is running on this database); append through it, or stop it first")
        }
        let now = Self.nowMilliseconds()
        let mine = IngestJournal.LogRequest(batch: PendingBatch(batch, receivedAt: now), record: LoggedBatch.encode(batch, receivedAt: now))
        return try appendThroughLog(mine, ingest)
    }

    /// Replaces, for every app key among `rules`, that app's whole rule set with the given
    /// rules (in their order) and `sampleRate`, in one transaction (`RulePublication`). Returns
    /// how many rules those apps now have.
    @discardableResult
    public func publish(_ rules: [StoredRule], sampleRate: Double, appKeys also: [String]) throws(StoreError) -> Int {
        let publication = RulePublication(rules, sampleRate: sampleRate, appKeys: also, publishedAt: Self.nowMilliseconds())
        try locked { db throws(SQLiteError) in
            try db.transaction { () throws(SQLiteError) in
                for statement in publication.statements(.sqlite) { try db.run(statement) }
            }
        }
        return publication.ruleCount
    }

    public func ruleSets(appKey: String?) throws(StoreError) -> [StoredRuleSet] {
        let (sets, rules) = RulePublication.ruleSetsQueries(appKey: appKey)
        return try locked { db throws(SQLiteError) in
            RulePublication.ruleSets(try db.query(sets, RulePublication.ruleSet), rules: try db.query(rules, RulePublication.rule))
        }
    }

    public func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError) {
        var extra: [SQLQuery] = []
        if !query.types.isEmpty { extra.append("type IN \(list: query.types)") }
        if let after = query.afterSeq { extra.append("seq > \(after)") }
        let limit: SQLQuery = query.limit.map { " LIMIT \(Int64($0))" } ?? ""
        let filter = try zoned(query.filter)
        try readingAlone(
            "SELECT \(raw: StoredEvent.columns) FROM events\(.where(filter.conditions() + extra)) ORDER BY seq\(limit)"
        ) { r throws(SQLDecodingError) in
            each(try StoredEvent(row: r))
        }
    }

    /// False once `close` ran.
    var isOpen: Bool { connection.withLock { $0 != nil } }

    /// Closes the connection (checkpointing the WAL into the file); later calls throw. Idempotent.
    /// The owner of the ingest log stores what waits in it first (what it cannot store stays in
    /// the log, for the next owner).
    public func close() {
        if let ingest {
            ingest.stop(grace: StoreTuning.workerStopGrace)
            while (try? storeLogged(limit: StoreTuning.batchesPerStore)) ?? 0 > 0 {}
        }
        for worker in rollupWorkers { _ = worker.close() }
        // Before the store's own connection, so that one closes last and removes the WAL.
        ingest?.close()
        let db = connection.withLock { c -> SQLiteDatabase? in
            defer { c = nil }
            return c
        }
        _ = db  // Released here, outside the lock: its deinit closes the handle.
    }

    /// Runs `body` on the open connection under the lock; SQLite's errors become the protocol's.
    /// Every logged batch is stored first (`ingestCurrent`), so what `body` reads counts every
    /// acknowledged event.
    func locked<T>(_ body: sending (SQLiteDatabase) throws(SQLiteError) -> sending T) throws(StoreError) -> T {
        try ingestCurrent()
        return try lockedAsStored(body)
    }

    /// `locked` without bringing `events` up to the ingest log first: for reading the log's own
    /// positions (`ingestCurrent` itself, monitoring).
    func lockedAsStored<T>(_ body: sending (SQLiteDatabase) throws(SQLiteError) -> sending T) throws(StoreError) -> T {
        let result: Result<T, SQLiteError>? = connection.withLock { c in
            guard let c else { return nil }
            do throws(SQLiteError) { return .success(try body(c)) } catch { return .failure(error) }
        }
        guard let result else { throw StoreError(.closed, "the database \(path) was closed") }
        do throws(SQLiteError) { return try result.get() } catch { throw error.storeError }
    }

    /// Runs a read-only query for the reports (`SQLiteEventStore+Reports.swift`), each row as
    /// `row` reads it.
    func read<T: Sendable>(_ query: SQLQuery, _ row: sending (SQLiteStatement) throws(SQLDecodingError) -> T) throws(StoreError) -> [T] {
        try locked { db throws(SQLiteError) in try db.query(query, row) }
    }

    /// The first row's only column of a read-only query, or nil when it has no row.
    func readScalar<T: SQLDecodable & Sendable>(_ query: SQLQuery, as type: T.Type = T.self) throws(StoreError) -> T? {
        try locked { db throws(SQLiteError) in try db.scalar(query, as: type) }
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
