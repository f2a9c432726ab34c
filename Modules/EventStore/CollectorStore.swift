/// What the collector needs from a database: every store (SQLite, PostgreSQL) implements it. It
/// is the sum of the small protocols a caller takes when it needs only one part: `EventIngest`
/// (append), `RuleStore` (published rule sets), `EventSource` (the stored events),
/// `ReportStore` (report rollups), `AnalyticsStore` (scans, actor events, device links,
/// rollups); `SnapshotStore` stands beside it. What stays here is the store's lifecycle.
///
/// Every method may block (disk, network): call them from threads of your own, never from the
/// Swift concurrency pool. An implementation serializes what must be serialized itself, so one
/// instance serves every connection of a server.
///
/// Guarantees every implementation keeps (docs/schema.md), besides those of its parts:
/// - `append` returns only once the batch is durable (committed in the events' table, or in a
///   log of the store's own that every read applies first: SQLite's ingest log), so its outcome
///   may be acknowledged, and every read after it counts it; a failure stores none of the batch (`EventIngest`).
/// - An event is stored once per `(appKey, id)`, ids compared byte for byte, however many
///   batches, connections or collectors carry it; repeats are counted as duplicates.
/// - Nothing is silently lost: an event that breaks the wire contract is kept with its reason.
/// - Event times in filters and reports are the corrected times (`StoredEvent.time`).
public protocol CollectorStore: EventIngest, RuleStore, ReportStore, AnalyticsStore {
    /// Where the data lives, for messages and report headers: a file path, or a URI without its
    /// password.
    var location: String { get }

    /// What opening the store repaired, each a sentence for the operator (a damaged derived file
    /// kept aside and made anew, an ingest log recovered): `serve` prints them on standard error.
    var openingNotices: [String] { get }

    /// The schema version of the open database.
    func schemaVersion() throws(StoreError) -> Int

    /// Retention: deletes the events whose corrected time is before `before` (ms since the epoch),
    /// and the rejected events and batch records received before it, only `appKey`'s when given.
    /// Works in transactions of at most `chunk` rows, so a collector writing meanwhile never
    /// waits long; returns what was deleted. Safe to interrupt and run again.
    func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome

    /// Closes the store; later calls throw `StoreError.Code.closed`. Idempotent.
    func close()
}

extension CollectorStore {
    public var openingNotices: [String] { [] }
}
