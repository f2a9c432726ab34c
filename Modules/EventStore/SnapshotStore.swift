/// Where snapshots and circle mode live (docs/studio.md, docs/wire.md §2 `SNAPSHOT`, docs/schema.md): both stores
/// (SQLite, PostgreSQL) implement it beside `CollectorStore`. Every method may block: call them
/// from threads of your own.
///
/// Guarantees every implementation keeps:
/// - per (appKey, appVersion, page) at most `Snapshot.keptPerPage` snapshots are kept: storing
///   one more deletes the oldest of that page (by `capturedAt`, then id), in the same transaction;
/// - the snapshots of one app hold at most `StoreOptions.snapshotBytes.perApp` bytes (PNG and
///   tree), all apps' at most `.inAll`: storing one more deletes the oldest (by id) until both
///   hold, in the same transaction, never the one just stored;
/// - `CollectorStore.prune(before:)` also deletes the snapshots captured before its cut;
/// - circle mode is per app key: on until a time, off once that time has passed;
/// - a page's name is per (appKey, page), kept until changed (pictures and prunes leave it).
public protocol SnapshotStore: AnyObject, Sendable {
    /// Stores `snapshot` (its `id` ignored) and returns its new id; deletes what falls outside
    /// the kept history of its page.
    func storeSnapshot(_ snapshot: Snapshot) throws(StoreError) -> Int64
    /// Summaries of the kept snapshots, only `appKey`'s (and `appVersion`'s) when given, newest
    /// first (by `capturedAt`, then id).
    func snapshots(appKey: String?, appVersion: String?) throws(StoreError) -> [SnapshotSummary]
    /// One snapshot whole, nil when there is none with this id.
    func snapshot(id: Int64) throws(StoreError) -> Snapshot?
    /// Turns circle mode on for `appKey` until `until` (ms since the epoch), or off with nil.
    /// A time already past stores nothing (off).
    func setCircleMode(appKey: String, until: Int64?) throws(StoreError)
    /// The app keys whose circle mode is on now, with the time it ends.
    func circleModes() throws(StoreError) -> [String: Int64]
    /// The names people gave `appKey`'s pages (docs/studio.md), by page (the paths' root).
    func pageNames(appKey: String) throws(StoreError) -> [String: String]
    /// Names `page` of `appKey` `name`, or takes its name away (nil).
    func setPageName(appKey: String, page: String, name: String?) throws(StoreError)
}

extension SnapshotStore {
    /// When circle mode ends for `appKey`, nil when it is off.
    public func circleModeUntil(appKey: String) throws(StoreError) -> Int64? {
        try circleModes()[appKey]
    }
}
