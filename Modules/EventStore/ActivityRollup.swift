/// The report's behaviour figures before their last step (module `Analytics`' `ActivitySummary`):
/// counts per day, the dwell distribution, page transitions and rage clicks, over the events a
/// filter selects. Both ways of answering give this same value, so the figures are computed from
/// it once:
/// - a store's rollup tables, maintained as events are stored (`AnalyticsStore.activityRollup`);
/// - one scan of the selected events (`Analytics.ActivityCounter`), for any store and filter.
///
/// Definitions (docs/reports.md "What `report` adds"):
/// - An actor is a person (`ActorKind.user`: the event's `user`, else its `device`, identity
///   merge applied, `DeviceLinks`); actors, devices and sessions of different app keys are
///   different.
/// - Pages are `page`, else `name`.
/// - A page sequence is the `page_enter` events of one app key, app version and session (an
///   event without a session goes by its actor as sent), ordered by corrected time, ties by storage
///   order. Each enter of another page than the one before it is a transition from that page.
/// - A click run is the `click` events of one app key, app version, actor as sent
///   (`ActorKind.sentID`: before identity merge, since a run is seconds long) and view (`path`,
///   else `name`) in that order, each at most `rageGapMilliseconds` after the one before it; a
///   burst is a run of at least `rageMinimumClicks`, and its `actor` is the person.
/// - An event without an app version goes with those whose version is the empty text.
public struct ActivityRollup: Sendable, Hashable {
    public static let rageGapMilliseconds: Int64 = 1_000
    public static let rageMinimumClicks = 3

    /// One UTC day that has events.
    public struct Day: Sendable, Hashable {
        public var day: UTCDay
        public var events: Int
        /// Distinct actors, devices, sessions.
        public var actors: Int
        public var devices: Int
        public var sessions: Int

        public init(day: UTCDay, events: Int, actors: Int, devices: Int, sessions: Int) {
            self.day = day
            self.events = events
            self.actors = actors
            self.devices = devices
            self.sessions = sessions
        }
    }

    /// The rank, from 1, of the nearest-rank percentile `p` of `n` sorted values: ⌈p·n/100⌉.
    public static func nearestRank(_ p: Int, of n: Int) -> Int { max(1, (p * n + 99) / 100) }

    /// How many times `to` was entered right after `from` in a page sequence.
    public struct Transition: Sendable, Hashable {
        public var from: String
        public var to: String
        public var count: Int

        public init(from: String, to: String, count: Int) {
            self.from = from
            self.to = to
            self.count = count
        }
    }

    /// One burst of clicks.
    public struct Burst: Sendable, Hashable {
        public var view: String
        public var appKey: String
        public var actor: String
        public var clicks: Int

        public init(view: String, appKey: String, actor: String, clicks: Int) {
            self.view = view
            self.appKey = appKey
            self.actor = actor
            self.clicks = clicks
        }
    }

    /// Days with events, in any order.
    public var days: [Day]
    /// One per page with leaves, in any order.
    public var dwell: [DwellPercentiles]
    /// In any order; a pair may repeat (the counts add up); counts of 0 are allowed.
    public var transitions: [Transition]
    /// In any order.
    public var bursts: [Burst]
    /// Per view with clicks that have an actor: the `page` of the first such click (storage
    /// order) that has one.
    public var viewPages: [String: String]

    public init(
        days: [Day] = [], dwell: [DwellPercentiles] = [], transitions: [Transition] = [], bursts: [Burst] = [], viewPages: [String: String] = [:]
    ) {
        self.days = days
        self.dwell = dwell
        self.transitions = transitions
        self.bursts = bursts
        self.viewPages = viewPages
    }
}

/// Dwell-time percentiles of one page, over its `page_leave` events that carry a `duration`.
public struct DwellPercentiles: Sendable, Hashable {
    public var page: String
    /// Leaves with a duration.
    public var leaves: Int
    /// Nearest-rank percentiles, ms (`ActivityRollup.nearestRank`): the smallest duration with
    /// at least 50% (90%) of the durations at or below it, so always a duration that occurred.
    public var p50: Int64
    public var p90: Int64

    public init(page: String, leaves: Int, p50: Int64, p90: Int64) {
        self.page = page
        self.leaves = leaves
        self.p50 = p50
        self.p90 = p90
    }
}

/// How far `AnalyticsStore.rebuildRollups` got with one app key.
public struct RollupProgress: Sendable, Hashable {
    public var appKey: String
    /// Events of the app replayed so far.
    public var replayed: Int
    /// Events of the app to replay in all (stored when the rebuild started).
    public var total: Int

    public init(appKey: String, replayed: Int, total: Int) {
        self.appKey = appKey
        self.replayed = replayed
        self.total = total
    }
}

extension AnalyticsStore {
    /// The default `activityRollup`: nil, a store without rollup tables; the analytics then scan.
    public func activityRollup(_ filter: EventFilter) throws(StoreError) -> ActivityRollup? { nil }

    /// The default `rebuildRollups`: nothing to rebuild.
    public func rebuildRollups(progress: (RollupProgress) -> Void) throws(StoreError) {}
}
