/// What the collector needs from a database: every store (SQLite, PostgreSQL) implements it, and
/// the collector's handler, reports and commands use only this protocol.
///
/// Every method may block (disk, network): call them from threads of your own, never from the
/// Swift concurrency pool. An implementation serializes what must be serialized itself, so one
/// instance serves every connection of a server.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - `append` returns only after the transaction holding the batch committed, so its outcome
///   may be acknowledged; a failure stores none of the batch.
/// - An event is stored once per `(appKey, id)`, ids compared byte for byte, however many
///   batches, connections or collectors carry it; repeats are counted as duplicates.
/// - Nothing is silently lost: an event that breaks the wire contract is kept with its reason.
/// - Event times in filters and reports are the corrected times (`StoredEvent.time`).
public protocol CollectorStore: AnyObject, Sendable {
    /// Where the data lives, for messages and report headers: a file path, or a URI without its
    /// password.
    var location: String { get }

    /// The schema version of the open database.
    func schemaVersion() throws(StoreError) -> Int

    /// Validates and stores a batch; returns after the COMMIT that holds it.
    func append(_ batch: EventBatch) throws(StoreError) -> BatchOutcome

    /// Replaces, for every app key among `rules` and `appKeys`, that app's whole rule set with
    /// these rules (in their order, a repeated id keeping the later rule) and `sampleRate`, in one
    /// transaction; returns how many rules those apps now have. The new set's etag is stored with
    /// it. An app of `appKeys` without rules among `rules` gets an empty set (the studio deleting
    /// an app's last definition).
    func publish(_ rules: [StoredRule], sampleRate: Double, appKeys: [String]) throws(StoreError) -> Int

    /// Published rule sets, by app key; only `appKey`'s when given (an app with nothing
    /// published has no set).
    func ruleSets(appKey: String?) throws(StoreError) -> [StoredRuleSet]

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

    /// Streams the stored events `query` selects, in storage order (`seq`), calling `each` for one
    /// event at a time (constant memory) until it returns false. `each` must not call the store.
    func events(_ query: EventQuery, _ each: (StoredEvent) -> Bool) throws(StoreError)

    /// Retention: deletes the events whose corrected time is before `before` (ms since the epoch),
    /// and the rejected events and batch records received before it, only `appKey`'s when given.
    /// Works in transactions of at most `chunk` rows, so a collector writing meanwhile never
    /// waits long; returns what was deleted. Safe to interrupt and run again.
    func prune(before: Int64, appKey: String?, chunk: Int) throws(StoreError) -> PruneOutcome
    /// The analytics' scan (CollectorStore+Analytics.swift): `query`'s events in storage order,
    /// without ids and props. Has a default over `events`; a store may answer it faster.
    func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError)
    /// Funnels' and retention tables' rows (ActorEvents.swift): per stored event of `query`'s
    /// kinds that has an actor, the kind, the actor as a number and the time, in any order (in
    /// time order, ties by `seq`, when `query.inTimeOrder`). Has a default over `scan`; a store
    /// may answer it faster.
    func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError)
    /// Identity merge (DeviceLinks.swift): the links of `appKey`'s devices (of every app when nil)
    /// that sent an event without a user (the only ones that can change an answer), made by the
    /// stored events, whenever stored. Has a default over `events`; a store may keep tables instead.
    func deviceLinks(appKey: String?) throws(StoreError) -> DeviceLinks
    /// The report's behaviour figures from the store's rollup tables (ActivityRollup.swift), or
    /// nil when it cannot answer `filter` from them (the analytics then scan). Defaults to nil.
    func activityRollup(_ filter: EventFilter) throws(StoreError) -> ActivityRollup?
    /// Brings rollup tables that wait to be rebuilt (after a schema migration or a prune) up to
    /// date, in short transactions while `append` goes on, calling `progress` as it goes;
    /// returns when none waits. Until then `activityRollup` answers nil for the apps waiting.
    /// Defaults to doing nothing. A collector runs it on a thread of its own once listening.
    func rebuildRollups(progress: (RollupProgress) -> Void) throws(StoreError)
    /// The `seq` of the last stored event, nil when there is none (where `tail` starts).
    func lastSequence() throws(StoreError) -> Int64?

    /// Closes the store; later calls throw `StoreError.Code.closed`. Idempotent.
    func close()
}

extension CollectorStore {
    /// Replaces the sets of the app keys among `rules` (`rules publish`, `PUBLISH`).
    @discardableResult
    public func publish(_ rules: [StoredRule], sampleRate: Double) throws(StoreError) -> Int {
        try publish(rules, sampleRate: sampleRate, appKeys: [])
    }

    /// The rule set of one app, or nil when none was published.
    public func ruleSet(appKey: String) throws(StoreError) -> StoredRuleSet? {
        try ruleSets(appKey: appKey).first
    }

    /// Every published rule, by app key then publish order.
    public func rules(appKey: String? = nil) throws(StoreError) -> [StoredRule] {
        try ruleSets(appKey: appKey).flatMap(\.rules)
    }
}
