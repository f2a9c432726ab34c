/// The rollups a report and the studio's definition counts read (`report`, `Definitions`):
/// part of `CollectorStore`. Every method may block: call them from threads of your own.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - event times in filters and reports are the corrected times (`StoredEvent.time`);
/// - every figure is over the stored events `filter` selects, each stored once per `(appKey, id)`.
public protocol ReportStore: EventSource {
    /// Totals over the events `filter` selects (rejected events and batches by app key only).
    func totals(_ filter: EventFilter) throws(StoreError) -> StoreTotals
    /// Events by type and name, most frequent first (ties by type, then name).
    func eventCounts(_ filter: EventFilter) throws(StoreError) -> [EventCount]
    /// Page events grouped by `page` (or, where an event has none, its `name`), by page name.
    func pageActivity(_ filter: EventFilter) throws(StoreError) -> [PageActivity]
    /// Events per app, app version, type, canonical path and title (events without a path left out), sorted.
    func pathCounts(_ filter: EventFilter) throws(StoreError) -> [PathCount]
    /// For `appKey`'s events that have a path, how many carry each value under `props[key]`, by
    /// app version, type, path, title and `props.rules`.
    func propValueCounts(appKey: String, key: String, _ filter: EventFilter) throws(StoreError) -> [PropValueCount]
    /// Events per app, version, UTC day, type, path and title (PathDayCounts.swift): what counting
    /// a definition reads. Has a default over `events`; a store may answer it faster.
    func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount]
    /// `kvc_error` events by app, rule and app version, most frequent first.
    func kvcErrorCounts(_ filter: EventFilter) throws(StoreError) -> [KVCErrorCount]
    /// Rejected events by reason, most frequent first.
    func rejectedCounts(_ filter: EventFilter) throws(StoreError) -> [ReasonCount]
}
