/// What the analytics (funnels, retention, activity; modules `Analytics`, `Definitions`) read:
/// part of `CollectorStore`. Every requirement has a default (over `events`; none for rollups)
/// (CollectorStore+Analytics.swift, ActorEvents.swift, DeviceLinks.swift, ActivityRollup.swift);
/// a store may answer faster, and must then give the same answers. Every method may block: call
/// them from threads of your own.
///
/// Guarantees every implementation keeps (docs/schema.md):
/// - event times are the corrected times (`StoredEvent.time`);
/// - `activityRollup` answers exactly what a scan would, or nil.
public protocol AnalyticsStore: EventSource {
    /// The analytics' scan (CollectorStore+Analytics.swift): `query`'s events in storage order,
    /// without ids and props. Has a default over `events`; a store may answer it faster.
    func scan(_ query: EventScanQuery, _ each: (ScannedEvent) -> Bool) throws(StoreError)
    /// Funnels' and retention tables' rows (ActorEvents.swift): per stored event of `query`'s
    /// kinds that has an actor, the kind, the actor as a number and the time, in any order (in
    /// time order, ties by `seq`, when `query.inTimeOrder`). Has a default over `scan`; a store
    /// may answer it faster.
    func actorEvents(_ query: ActorEventQuery, _ each: (ActorEvent) -> Bool) throws(StoreError)
    /// `actorEvents` where each kind at an index of `selected` stands for the events its selector
    /// selects (EventSelector.swift: of the selector's type, any name) instead of its type and
    /// name; an event two kinds select serves both. Has a default over `events`; a store may
    /// answer it faster.
    func actorEvents<S: EventSelector>(
        _ query: ActorEventQuery, selecting selected: [(kind: Int, selector: S)], _ each: (ActorEvent) -> Bool) throws(StoreError)
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
}
