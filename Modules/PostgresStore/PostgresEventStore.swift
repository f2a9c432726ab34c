import EventModel
import EventStore
import Foundation
import Synchronization

/// The collector's store on PostgreSQL, for any number of collectors sharing one database.
///
/// Each collector keeps a pool of connections. Batches are written by group commit: batches that
/// arrive while commits run wait, and the next commit writes all of them in one transaction, the
/// events by `COPY` (`PostgresCopyInsert`; `PostgresGroupInsert` when an id is already stored);
/// up to `maxCommits` commits run at once. Nobody returns before the
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
    /// Batches waiting for the next group commit, and how many commits run.
    private let queue = Mutex(CommitQueue())
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
    public init(uri: String, options: StoreOptions = StoreOptions(), ingest: PostgresIngest = .copy) throws(StoreError) {
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
        // A free commit slot: this caller commits everything waiting, its batch included.
        // Otherwise it waits until a commit holding its batch finished, or until a finishing
        // commit hands it the batches that gathered meanwhile (its own first).
        let group = queue.withLock { q -> [PostgresPendingBatch]? in
            q.pending.append(mine)
            guard q.running < Self.maxCommits else { return nil }
            q.running += 1
            return q.takePending()
        }
        if let group = group ?? mine.waitUntilFinishedOrLeading() { lead(group) }
        return try mine.outcome()
    }

    /// Commits `group` in this caller's slot, then hands the slot to the batches that gathered
    /// meanwhile: the first of them (waiting on its own thread) commits them all. So no caller
    /// works for others after its own commit, and no waiting batch waits for a busy slot while
    /// another is free.
    private func lead(_ group: [PostgresPendingBatch]) {
        commit(group)
        let next = queue.withLock { q -> [PostgresPendingBatch]? in
            if q.pending.isEmpty {
                q.running -= 1
                return nil
            }
            return q.takePending()
        }
        if let next { next[0].lead(next) }
    }

    /// Writes `group` in one transaction; when that fails for a reason other than the connection,
    /// each batch is tried alone, so a batch the database refuses fails alone.
    private func commit(_ group: [PostgresPendingBatch]) {
        let whole = attempt(group)
        if case .failure(let error) = whole, group.count > 1, !error.isTransient {
            for batch in group { finish([batch], attempt([batch])) }
            return
        }
        finish(group, whole)
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

    private func finish(_ group: [PostgresPendingBatch], _ result: Result<[BatchOutcome], PostgresError>) {
        switch result {
        case .success(let outcomes):
            for (batch, outcome) in zip(group, outcomes) { batch.finish(.success(outcome)) }
        case .failure(let error):
            let e = Self.storeError(error, uri: pool.uri)
            for batch in group { batch.finish(.failure(e)) }
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
        let (sets, rules) = try withConnection { c throws(PostgresError) in
            // One snapshot for both reads, so a publish in between cannot mix two sets.
            try c.transaction { () throws(PostgresError) in
                try c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                let where_ = appKey == nil ? "" : " WHERE app_key = $1"
                let parameters: [String?] = appKey.map { [PostgresText.encode($0)] } ?? []
                let sets = try c.execute(
                    "SELECT app_key, sample_rate, etag, published_at FROM rule_sets\(where_) ORDER BY app_key", parameters)
                let rules = try c.execute(
                    "SELECT app_key, id, json, published_at FROM rules\(where_) ORDER BY app_key, position", parameters)
                return (sets.rows.map { $0.map(PostgresText.decode) }, rules.rows.map { $0.map(PostgresText.decode) })
            }
        }
        var byApp: [String: [StoredRule]] = [:]
        for r in rules {
            let rule = StoredRule(
                appKey: r[0] ?? "", id: r[1] ?? "", json: r[2] ?? "{}", publishedAt: r[3].flatMap { Int64($0) } ?? 0)
            byApp[rule.appKey, default: []].append(rule)
        }
        return sets.map { s in
            let key = s[0] ?? ""
            return StoredRuleSet(
                appKey: key, sampleRate: s[1].flatMap { Double($0) } ?? 1, etag: s[2] ?? "", rules: byApp[key] ?? [],
                publishedAt: s[3].flatMap { Int64($0) } ?? 0)
        }
    }

    public func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError) {
        var f = PostgresFilter(query.filter, table: "")
        if !query.types.isEmpty { f.add("type = ANY(?::text[])", PostgresArrayLiteral.text(query.types)) }
        if let after = query.afterSeq { f.add("seq > ?", String(after)) }
        var sql = """
            SELECT seq, app_key, app_version, id, ts, type, name, page, path, view_id, session, user_id, device_id, duration,
                   props, corrected_ts, received_at
            FROM events\(f.where()) ORDER BY seq
            """
        if let limit = query.limit { sql += " LIMIT \(max(0, limit))" }
        let statement = sql
        let parameters = f.parameters
        // A cursor keeps memory constant: 1,000 rows at a time, in one read-only transaction.
        try withConnection(retryOnStale: true) { c throws(PostgresError) in
            try c.transaction { () throws(PostgresError) in
                try c.execute("DECLARE autotrack_events NO SCROLL CURSOR FOR \(statement)", parameters)
                while true {
                    let page = try c.execute("FETCH 1000 FROM autotrack_events").rows
                    for raw in page {
                        let r = raw.map(PostgresText.decode)
                        let props = r[14].flatMap { try? JSONValue.parse($0) }?.objectValue ?? JSONObject()
                        func int(_ i: Int) -> Int64? { r[i].flatMap { Int64($0) } }
                        let event = TrackEvent(
                            id: r[3] ?? "", ts: int(4) ?? 0, type: EventType(rawValue: r[5] ?? "") ?? .custom,
                            name: r[6] ?? "", page: r[7], path: r[8], viewId: r[9], session: r[10], user: r[11],
                            device: r[12], duration: int(13), props: props)
                        let stored = StoredEvent(
                            seq: int(0) ?? 0, appKey: r[1] ?? "", appVersion: r[2], event: event, time: int(15) ?? 0,
                            receivedAt: int(16) ?? 0)
                        if !each(stored) { return }
                    }
                    if page.count < 1000 { return }
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

    /// Runs a read-only query for the reports (`PostgresEventStore+Reports.swift`).
    /// Text comes back decoded (`PostgresText`).
    func read(_ sql: String, _ parameters: [String?] = []) throws(StoreError) -> [[String?]] {
        try withConnection { c throws(PostgresError) in try c.execute(sql, parameters).rows }.map { $0.map(PostgresText.decode) }
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

/// The batches waiting for a group commit and the number of group commits running.
struct CommitQueue: Sendable {
    var pending: [PostgresPendingBatch] = []
    var running = 0

    /// Every waiting batch, in arrival order; the queue is left empty.
    mutating func takePending() -> [PostgresPendingBatch] {
        defer { pending = [] }
        return pending
    }
}
