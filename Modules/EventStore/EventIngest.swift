/// What ingest (the ATLP handler's `BATCH`) needs from a store: storing a batch. Part of
/// `CollectorStore`; a caller that only stores events takes this.
///
/// `append` may block (disk, network): call it from threads of your own, never from the Swift
/// concurrency pool. An implementation serializes writers itself, so one instance serves every
/// connection of a server.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - `append` returns only once the batch is durable (committed in the events' table, or in a
///   log of the store's own that every read applies first: SQLite's ingest log), so its outcome
///   may be acknowledged, and every read after it counts it; a failure stores none of the batch.
/// - An event is stored once per `(appKey, id)`, ids compared byte for byte, however many
///   batches, connections or collectors carry it; repeats are counted as duplicates.
/// - Nothing is silently lost: an event that breaks the wire contract is kept with its reason.
public protocol EventIngest: AnyObject, Sendable {
    /// Validates and stores a batch; returns once the batch is durable.
    func append(_ batch: EventBatch) throws(StoreError) -> BatchOutcome
}
