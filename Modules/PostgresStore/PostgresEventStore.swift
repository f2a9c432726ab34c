import EventModel
public import EventStore
import Foundation
import StoreSQL

/// The collector's store on PostgreSQL, for any number of collectors sharing one database.
///
/// Each collector keeps a pool of connections. Batches are written by group commit: batches that
/// arrive while commits run wait, and the next commit writes all of them in one transaction, the
/// events by `COPY` (`PostgresCopyInsert`; `PostgresGroupInsert` when an id is already stored);
/// up to `PostgresTuning.maxCommits` commits run at once. Nobody returns before the
/// commit that holds its batch. Exactly once across collectors rests on the primary key `(app_key, id)` of `event_ids`,
/// not on anything a collector remembers, so a collector may die at any moment.
///
/// Every method blocks on the network: call it from threads of your own (the ATLP server's
/// workers, a command's main thread), never the Swift concurrency pool.
public final class PostgresEventStore: CollectorStore {
    /// The URI without its password.
    public let location: String
    /// What `storeSnapshot` keeps (`StoreOptions.snapshotBytes`).
    let snapshotBytes: StoreOptions.SnapshotBytes
    private let pool: PostgresPool
    /// Keeps the rollup tables up to date while this store serves (`.create`); nil otherwise.
    let builder: PostgresRollupBuilder?
    /// The statements a group commit writes with.
    let ingest: PostgresIngest
    /// The day partitions this collector made sure of.
    let partitions = PostgresDayPartitions()
    /// Batches waiting for the next group commit, and the commits running (`PostgresTuning.maxCommits` at once).
    private let commits = GroupCommit<PostgresPendingBatch, BatchOutcome, StoreError>(maxCommits: PostgresTuning.maxCommits)
    /// True for the `--db` values this store takes: `postgresql://…` or `postgres://…` URIs.
    public static func accepts(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Connects to `uri` (a libpq URI: `postgresql://user@host:5432/db`, `postgresql:///db?host=/run/postgresql`),
    /// then, as `options.access` says, creates and migrates the schema (`.create`, `.existing`) or
    /// checks that it is current and opens every connection read-only (`.readOnly`). `ingest`
    /// chooses how groups are written (`pg-bench` compares them, docs/performance.md).
    public init(uri: String, options: StoreOptions = StoreOptions(), ingest: PostgresIngest = .copy) throws(StoreError) {
        location = DatabaseURI.redacted(uri)
        self.ingest = ingest
        snapshotBytes = options.snapshotBytes
        var setup = PostgresTuning.sessionSettings
        if options.access == .readOnly { setup.append("SET default_transaction_read_only = on") }
        // normal: a commit may be lost if the database server crashes (not when a collector does).
        if options.durability == .normal { setup.append("SET synchronous_commit = off") }
        pool = PostgresPool(uri: uri, setup: setup)
        builder = options.access == .create ? PostgresRollupBuilder(uri: uri, setup: setup) : nil
        let location = self.location
        do throws(PostgresError) {
            try PostgresConnection.validate(uri: uri)
            try pool.withConnection { c throws(PostgresError) in
                switch options.access {
                case .create, .existing:
                    if options.access == .existing, try PostgresSchema.version(c) == nil {
                        try PostgresSchema.check(c, location: location, migrating: false)
                    }
                    try PostgresSchema.migrate(c, location: location)
                case .readOnly:
                    try PostgresSchema.check(c, location: location, migrating: false)
                }
            }
        } catch {
            pool.close()
            throw Self.storeError(error, uri: pool.uri)
        }
        builder?.start()
    }

    deinit { builder?.stop(grace: PostgresTuning.rollupStopGrace) }

    public func schemaVersion() throws(StoreError) -> Int {
        try withConnection { c throws(PostgresError) in try PostgresSchema.version(c) ?? 0 }
    }

    /// The schema version this build writes.
    public static var currentSchemaVersion: Int { PostgresSchema.currentVersion }

    public func append(_ batch: EventBatch) throws(StoreError) -> BatchOutcome {
        // Validation and row building need no lock: they run on the caller's thread, in parallel.
        let mine = PostgresPendingBatch(batch, receivedAt: Self.nowMilliseconds())
        return try commits.submit(mine, commit: commit).get()
    }

    /// Writes `group` in one transaction; when that fails for a reason other than the connection,
    /// each batch is tried alone, so a batch the database refuses fails alone.
    private func commit(_ group: [PostgresPendingBatch]) -> [Result<BatchOutcome, StoreError>] {
        let whole = attempt(group)
        if case .failure(let error) = whole, group.count > 1, !error.isTransient {
            return group.flatMap { batch in results([batch], attempt([batch])) }
        }
        return results(group, whole)
    }

    /// One group commit, retried once on a fresh connection when the first broke or deadlocked:
    /// an unacknowledged group may run twice, since `event_ids` keeps it once.
    private func attempt(_ group: [PostgresPendingBatch]) -> Result<[BatchOutcome], PostgresError> {
        var last: PostgresError?
        for _ in 0..<2 {
            do throws(PostgresError) {
                return .success(try pool.withConnection { c throws(PostgresError) in try write(group, on: c) })
            } catch {
                last = error
                if !error.isTransient { break }
            }
        }
        return .failure(last!)
    }

    private func write(_ group: [PostgresPendingBatch], on c: PostgresConnection) throws(PostgresError) -> [BatchOutcome] {
        switch ingest {
        case .groupInsert: try PostgresGroupInsert.run(group, partitions: partitions, on: c)
        case .copy: try PostgresCopyInsert.run(group, partitions: partitions, on: c)
        }
    }

    private func results(_ group: [PostgresPendingBatch], _ result: Result<[BatchOutcome], PostgresError>) -> [Result<BatchOutcome, StoreError>] {
        switch result {
        case .success(let outcomes): outcomes.map { .success($0) }
        case .failure(let error): group.map { _ in .failure(Self.storeError(error, uri: pool.uri)) }
        }
    }

    /// Replaces the rule sets of the apps among `rules` (and `also`) in one transaction
    /// (`RulePublication`, text bound in its stored form); the first statement of each app locks
    /// its rule set row, so publishes of one app from two collectors run one after the other, whole.
    @discardableResult
    public func publish(_ rules: [StoredRule], sampleRate: Double, appKeys also: [String]) throws(StoreError) -> Int {
        let publication = RulePublication(rules, sampleRate: sampleRate, appKeys: also, publishedAt: Self.nowMilliseconds())
        try withConnection { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) in
                for statement in publication.statements(.postgres, storing: PostgresText.encode) { try c.execute(statement) }
            }
        }
        return publication.ruleCount
    }

    public func ruleSets(appKey: String?) throws(StoreError) -> [StoredRuleSet] {
        let (sets, rules) = RulePublication.ruleSetsQueries(appKey: PostgresText.encode(appKey))
        return try withConnection { c throws(PostgresError) in
            // One snapshot for both reads, so a publish in between cannot mix two sets.
            try c.transaction { () throws(PostgresError) in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                return RulePublication.ruleSets(
                    try c.execute(sets).decode(RulePublication.ruleSet), rules: try c.execute(rules).decode(RulePublication.rule))
            }
        }
    }

    public func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError) {
        var conditions: [SQLQuery] = []
        if !query.types.isEmpty { conditions.append("type = ANY(\(PostgresTextArray(query.types))::text[])") }
        if let after = query.afterSeq { conditions.append("seq > \(after)") }
        let limit: SQLQuery = query.limit.map { " LIMIT \(max(0, $0))" } ?? ""
        let statement: SQLQuery = "SELECT \(raw: StoredEvent.columns) FROM events\(query.filter.postgresWhere(conditions)) ORDER BY seq\(limit)"
        // A cursor keeps memory constant: 1,000 rows at a time, in one read-only transaction.
        try withConnection(retryOnStale: true) { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) in
                try c.execute("DECLARE autotrack_events NO SCROLL CURSOR FOR \(statement)")
                while true {
                    let page = try c.execute("FETCH 1000 FROM autotrack_events")
                    let going = try page.readEach { r throws(SQLDecodingError) in each(try StoredEvent(row: r)) }
                    if !going || page.count < 1000 { return }
                }
            }
        }
    }

    /// Closes the pool's connections; later calls throw `.closed`. Idempotent.
    public func close() {
        builder?.stop(grace: PostgresTuning.rollupStopGrace)
        pool.close()
    }

    /// Runs `body` on a pooled connection; PostgreSQL's errors become the protocol's.
    func withConnection<T>(
        retryOnStale: Bool = true, _ body: (PostgresConnection) throws(PostgresError) -> T
    ) throws(StoreError) -> T {
        do throws(PostgresError) {
            return try pool.withConnection(retryOnStale: retryOnStale, body)
        } catch {
            throw Self.storeError(error, uri: pool.uri)
        }
    }

    /// Runs a read-only query for the reports (`PostgresEventStore+Reports.swift`), each row read
    /// by `row` (text comes back decoded, `PostgresRow`).
    func read<T>(_ query: SQLQuery, _ row: (PostgresRow) throws(SQLDecodingError) -> T) throws(StoreError) -> [T] {
        try withConnection { c throws(PostgresError) in try c.execute(query).decode(row) }
    }

    /// The protocol's error for a PostgreSQL failure: what the collector answers depends on the code.
    /// The message names the database without its password, and libpq's text (which may echo a
    /// piece of the URI) is redacted too.
    static func storeError(_ e: PostgresError, uri: String) -> StoreError {
        let code: StoreError.Code
        switch e.code {
        case .usage where e.message.contains("closed"): code = .closed
        case .schema where e.message.contains("newer") || e.message.contains("older"): code = .schemaVersion
        case .schema where e.sqlState == "42P01": code = .notFound
        case .schema: code = .notAutotrack
        default:
            if e.isTransient || e.sqlState == "53100" || e.sqlState == "53200" {
                code = .unavailable
            } else if e.sqlState == "25006" || e.sqlState == "42501" {
                code = .readOnly
            } else if e.sqlState == "3D000" {
                code = .notFound
            } else {
                code = .failed
            }
        }
        return StoreError(code, DatabaseURI.redacting("\(DatabaseURI.redacted(uri)): \(e)", secretsOf: uri))
    }

    static func nowMilliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded())
    }
}
