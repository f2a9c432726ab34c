import EventModel
import EventStore
import Foundation
import StoreSQL
import Synchronization

/// The collector's store on PostgreSQL, for any number of collectors sharing one database.
///
/// Each collector keeps a pool of connections. Batches are written by group commit: batches that
/// arrive while commits run wait, and the next commit writes all of them with one statement
/// (`PostgresGroupInsert`); up to `maxCommits` commits run at once. Nobody returns before the
/// commit that holds its batch. Exactly once across collectors rests on the primary key `(app_key, id)` of `event_ids`,
/// not on anything a collector remembers, so a collector may die at any moment.
///
/// Every method blocks on the network: call it from threads of your own (the ATLP server's
/// workers, a command's main thread), never the Swift concurrency pool.
public final class PostgresEventStore: CollectorStore {
    /// The URI without its password.
    public let location: String
    private let pool: PostgresPool
    /// Keeps the aggregate tables up to date while this store serves (`.create`); nil otherwise.
    let builder: PostgresAggregateBuilder?
    /// The statements a group commit writes with.
    let ingest: PostgresIngest
    /// The day partitions this collector made sure of.
    let partitions = PostgresDayPartitions()
    /// Batches waiting for the next group commit, and the commits running (`maxCommits` at once).
    private let commits = GroupCommit<PostgresPendingBatch, BatchOutcome, StoreError>(maxCommits: maxCommits)
    /// Group commits that run at once, each on its own pooled connection, so one's round trip
    /// and execution overlap another's WAL flush (PostgreSQL flushes concurrent commits
    /// together). With one at a time the database sat idle between commits (docs/performance.md).
    static let maxCommits = 4
    /// True for the `--db` values this store takes: `postgresql://…` or `postgres://…` URIs.
    public static func accepts(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Connects to `uri` (a libpq URI: `postgresql://user@host:5432/db`, `postgresql:///db?host=/run/postgresql`),
    /// then, as `options.access` says, creates and migrates the schema (`.create`, `.existing`) or
    /// checks that it is current and opens every connection read-only (`.readOnly`). `ingest`
    /// chooses how groups are written (benchmarks compare them; the default is the fastest measured).
    public init(uri: String, options: StoreOptions = StoreOptions(), ingest: PostgresIngest = .groupInsert) throws(StoreError) {
        location = DatabaseURI.redacted(uri)
        self.ingest = ingest
        var setup: [String] = []
        if options.access == .readOnly { setup.append("SET default_transaction_read_only = on") }
        // normal: a commit may be lost if the database server crashes (not when a collector does).
        if options.durability == .normal { setup.append("SET synchronous_commit = off") }
        pool = PostgresPool(uri: uri, setup: setup)
        builder = options.access == .create ? PostgresAggregateBuilder(uri: uri, setup: setup) : nil
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

    deinit { builder?.stop() }

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

    /// Writes `group` in one statement; when that fails for a reason other than the connection,
    /// each batch is tried alone, so a batch the database refuses fails alone.
    private func commit(_ group: [PostgresPendingBatch]) -> [Result<BatchOutcome, StoreError>] {
        let whole = attempt(group)
        if case .failure(let error) = whole, group.count > 1, !error.isTransient {
            return group.flatMap { batch in results([batch], attempt([batch])) }
        }
        return results(group, whole)
    }

    /// One group insert, retried once on a fresh connection when the first broke or deadlocked:
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
        case .stagedCopy: try PostgresCopyInsert.staged(group, partitions: partitions, on: c)
        case .copy: try PostgresCopyInsert.direct(group, partitions: partitions, on: c)
        }
    }

    private func results(_ group: [PostgresPendingBatch], _ result: Result<[BatchOutcome], PostgresError>) -> [Result<BatchOutcome, StoreError>] {
        switch result {
        case .success(let outcomes): outcomes.map { .success($0) }
        case .failure(let error): group.map { _ in .failure(Self.storeError(error, uri: pool.uri)) }
        }
    }

    @discardableResult
    public func publish(_ rules: [StoredRule], sampleRate: Double, appKeys also: [String]) throws(StoreError) -> Int {
        let now = Self.nowMilliseconds()
        var seen = Set<String>()
        let appKeys = (rules.map(\.appKey) + also).filter { seen.insert($0).inserted }
        return try withConnection { c throws(PostgresError) -> Int in
            try c.transaction { () throws(PostgresError) -> Int in
                var count = 0
                for key in appKeys {
                    // Publishes of one app from two collectors at once: one after the other, whole.
                    let storedKey = PostgresText.encode(key)
                    try c.execute("SELECT 1 FROM rule_sets WHERE app_key = $1 FOR UPDATE", [storedKey])
                    try c.execute("DELETE FROM rules WHERE app_key = $1", [storedKey])
                    // A repeated id within one publish: the later rule wins, at the later place.
                    var ordered: [StoredRule] = []
                    for r in rules where r.appKey == key {
                        ordered.removeAll { $0.id == r.id }
                        ordered.append(r)
                    }
                    try c.execute(
                        """
                        INSERT INTO rules (app_key, id, position, json, published_at)
                        SELECT $1, id, position - 1, json, $4 FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(id, json, position)
                        """,
                        [
                            storedKey, PostgresArrayLiteral.text(ordered.map { PostgresText.encode($0.id) }),
                            PostgresArrayLiteral.text(ordered.map { PostgresText.encode($0.json) }),
                            String(now),
                        ])
                    let etag = StoredRuleSet.etag(ruleJSON: ordered.map(\.json), sampleRate: sampleRate)
                    try c.execute(
                        """
                        INSERT INTO rule_sets (app_key, sample_rate, etag, published_at) VALUES ($1, $2, $3, $4)
                        ON CONFLICT (app_key) DO UPDATE SET
                            sample_rate = excluded.sample_rate, etag = excluded.etag, published_at = excluded.published_at
                        """, [storedKey, JSONValue.double(sampleRate).jsonText, etag, String(now)])
                    count += ordered.count
                }
                return count
            }
        }
    }

    public func ruleSets(appKey: String?) throws(StoreError) -> [StoredRuleSet] {
        let app: SQLQuery = appKey.map { " WHERE app_key = \(PostgresText.encode($0))" } ?? ""
        let (sets, rules) = try withConnection { c throws(PostgresError) in
            // One snapshot for both reads, so a publish in between cannot mix two sets.
            try c.transaction { () throws(PostgresError) in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                let sets = try c.execute("SELECT app_key, sample_rate, etag, published_at FROM rule_sets\(app) ORDER BY app_key").decode {
                    r throws(SQLDecodingError) in
                    StoredRuleSet(
                        appKey: try r["app_key"], sampleRate: try r["sample_rate"], etag: try r["etag"], rules: [],
                        publishedAt: try r["published_at"])
                }
                let rules = try c.execute("SELECT app_key, id, json, published_at FROM rules\(app) ORDER BY app_key, position").decode {
                    r throws(SQLDecodingError) in
                    StoredRule(appKey: try r["app_key"], id: try r["id"], json: try r["json"], publishedAt: try r["published_at"])
                }
                return (sets, rules)
            }
        }
        var byApp: [String: [StoredRule]] = [:]
        for rule in rules { byApp[rule.appKey, default: []].append(rule) }
        return sets.map { s in
            var s = s
            s.rules = byApp[s.appKey] ?? []
            return s
        }
    }

    public func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError) {
        var conditions: [SQLQuery] = []
        if !query.types.isEmpty { conditions.append("type = ANY(\(PostgresTextArray(query.types))::text[])") }
        if let after = query.afterSeq { conditions.append("seq > \(after)") }
        var statement: SQLQuery = """
            SELECT seq, app_key, app_version, id, ts, type, name, page, path, view_id, session, user_id, device_id, duration,
                   props, corrected_ts, received_at
            FROM events\(query.filter.postgresWhere(conditions)) ORDER BY seq
            """
        if let limit = query.limit { statement.append(" LIMIT \(max(0, limit))") }
        // A cursor keeps memory constant: 1,000 rows at a time, in one read-only transaction.
        try withConnection(retryOnStale: true) { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) in
                try c.execute("DECLARE autotrack_events NO SCROLL CURSOR FOR \(statement)")
                while true {
                    let page = try c.execute("FETCH 1000 FROM autotrack_events")
                    let going = try page.readEach { r throws(SQLDecodingError) -> Bool in
                        let props = (try r["props", as: String?.self]).flatMap { try? JSONValue.parse($0) }?.objectValue ?? JSONObject()
                        let event = TrackEvent(
                            id: try r["id"], ts: try r["ts"], type: EventType(rawValue: try r["type"]) ?? .custom, name: try r["name"],
                            page: try r["page"], path: try r["path"], viewId: try r["view_id"], session: try r["session"],
                            user: try r["user_id"], device: try r["device_id"], duration: try r["duration"], props: props)
                        return each(
                            StoredEvent(
                                seq: try r["seq"], appKey: try r["app_key"], appVersion: try r["app_version"], event: event,
                                time: try r["corrected_ts"], receivedAt: try r["received_at"]))
                    }
                    if !going || page.count < 1000 { return }
                }
            }
        }
    }

    /// Closes the pool's connections; later calls throw `.closed`. Idempotent.
    public func close() {
        builder?.stop()
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
