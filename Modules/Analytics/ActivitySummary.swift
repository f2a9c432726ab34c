import EventStore

/// Events and distinct actors, devices and sessions on one UTC day.
public struct DailyActivity: Sendable, Hashable {
    public var day: CalendarDay
    public var events: Int
    /// Distinct actors (`user`, else `device`); events with neither count for none.
    public var actors: Int
    public var devices: Int
    public var sessions: Int

    public init(day: CalendarDay, events: Int, actors: Int, devices: Int, sessions: Int) {
        self.day = day
        self.events = events
        self.actors = actors
        self.devices = devices
        self.sessions = sessions
    }
}

/// Dwell-time percentiles of one page, over its `page_leave` events that carry a `duration`.
public struct DwellPercentiles: Sendable, Hashable {
    public var page: String
    /// Leaves with a duration.
    public var leaves: Int
    /// Nearest-rank percentiles, ms: the smallest duration with at least 50% (90%) of the
    /// durations at or below it.
    public var p50: Int64
    public var p90: Int64

    public init(page: String, leaves: Int, p50: Int64, p90: Int64) {
        self.page = page
        self.leaves = leaves
        self.p50 = p50
        self.p90 = p90
    }
}

/// The page most often entered next after one page.
public struct NextPage: Sendable, Hashable {
    public var page: String
    public var next: String
    /// Times `next` followed `page`.
    public var count: Int
    /// Times any other page followed `page`.
    public var transitions: Int

    public init(page: String, next: String, count: Int, transitions: Int) {
        self.page = page
        self.next = next
        self.count = count
        self.transitions = transitions
    }
}

/// Rage clicks on one view: bursts of at least 3 clicks by one actor, each within a second of
/// the one before.
public struct RageClicks: Sendable, Hashable {
    /// The view's canonical path, else the click's name.
    public var view: String
    /// The page of the first click on it.
    public var page: String?
    public var bursts: Int
    /// Clicks inside those bursts.
    public var clicks: Int
    /// Distinct actors with a burst.
    public var actors: Int

    public init(view: String, page: String?, bursts: Int, clicks: Int, actors: Int) {
        self.view = view
        self.page = page
        self.bursts = bursts
        self.clicks = clicks
        self.actors = actors
    }
}

/// The report's behaviour figures: the trend per day, dwell percentiles, next pages, rage clicks.
public struct ActivitySummary: Sendable, Hashable {
    /// Earliest first; days without events between the first and last are listed with zeros
    /// (when they span at most `ActivityCounter.maximumFilledDays`).
    public var days: [DailyActivity]
    /// By page.
    public var dwell: [DwellPercentiles]
    /// By page.
    public var nextPages: [NextPage]
    /// Most bursts first, then by view.
    public var rageClicks: [RageClicks]

    public init(days: [DailyActivity] = [], dwell: [DwellPercentiles] = [], nextPages: [NextPage] = [], rageClicks: [RageClicks] = []) {
        self.days = days
        self.dwell = dwell
        self.nextPages = nextPages
        self.rageClicks = rageClicks
    }
}

/// Computes an `ActivitySummary` from one scan of every selected event (any order).
///
/// - Pages are `page`, else `name` (as the report's pages table).
/// - Next page: the `page_enter` events of one session (`session`; an event without one goes by
///   its actor, `user` else `device`) in order of corrected time, ties by storage order; each
///   enter of a different page than the one before is a transition from that one. A repeat
///   of the same page is no transition.
/// - Rage clicks: the `click` events of one actor on one view (`path`, else `name`) in that
///   order; a run of clicks each at most `rageGapMilliseconds` after the one before is a burst
///   when it holds at least `rageMinimumClicks`.
public struct ActivityCounter {
    public static let rageGapMilliseconds: Int64 = 1_000
    public static let rageMinimumClicks = 3
    public static let maximumFilledDays: Int64 = 1_000

    private struct Day {
        var events = 0
        var actors = Set<ActorID>()
        var devices = Set<ActorID>()
        var sessions = Set<ActorID>()
    }
    private struct ViewKey: Hashable {
        var actor: ActorID
        var view: String
    }

    private var days: [Int64: Day] = [:]
    private var durations: [String: [Int64]] = [:]
    private var enters: [ActorID: [(order: EventOrder, page: String)]] = [:]
    private var clicks: [ViewKey: [EventOrder]] = [:]
    private var clickPages: [String: String] = [:]

    public init() {}

    /// The scan that feeds this counter: every event `filter` selects.
    public func query(_ filter: EventFilter) -> EventScanQuery { EventScanQuery(filter: filter) }

    public mutating func add(_ e: ScannedEvent) {
        let day = CalendarDay(time: e.time).number
        days[day, default: Day()].events += 1
        let actor = ActorKind.user.actor(of: e)
        if let actor { days[day]!.actors.insert(actor) }
        if let device = ActorKind.device.actor(of: e) { days[day]!.devices.insert(device) }
        if let session = ActorKind.session.actor(of: e) { days[day]!.sessions.insert(session) }
        switch e.type {
        case "page_leave":
            if let d = e.duration { durations[e.page ?? e.name, default: []].append(d) }
        case "page_enter":
            if let sequence = ActorKind.session.actor(of: e) ?? actor {
                enters[sequence, default: []].append((EventOrder(e), e.page ?? e.name))
            }
        case "click":
            guard let actor else { return }
            let view = e.path ?? e.name
            clicks[ViewKey(actor: actor, view: view), default: []].append(EventOrder(e))
            if clickPages[view] == nil, let page = e.page { clickPages[view] = page }
        default:
            break
        }
    }

    public func result() -> ActivitySummary {
        ActivitySummary(days: dailyActivity(), dwell: dwell(), nextPages: nextPages(), rageClicks: rageClicks())
    }

    private func dailyActivity() -> [DailyActivity] {
        guard let first = days.keys.min(), let last = days.keys.max() else { return [] }
        let numbers = last - first <= Self.maximumFilledDays ? Array(first...last) : days.keys.sorted()
        return numbers.map { n in
            let d = days[n] ?? Day()
            return DailyActivity(
                day: CalendarDay(number: n), events: d.events, actors: d.actors.count, devices: d.devices.count, sessions: d.sessions.count)
        }
    }

    private func dwell() -> [DwellPercentiles] {
        durations.keys.sorted().map { page in
            let sorted = durations[page]!.sorted()
            return DwellPercentiles(
                page: page, leaves: sorted.count, p50: Self.nearestRank(sorted, 50), p90: Self.nearestRank(sorted, 90))
        }
    }

    /// The nearest-rank percentile of ascending `sorted` (not empty): the value at rank ⌈p·n/100⌉.
    static func nearestRank(_ sorted: [Int64], _ p: Int) -> Int64 {
        let rank = max(1, (p * sorted.count + 99) / 100)
        return sorted[rank - 1]
    }

    private func nextPages() -> [NextPage] {
        var counts: [String: [String: Int]] = [:]
        for (_, list) in enters {
            var previous: String?
            for e in list.sorted(by: { $0.order < $1.order }) {
                if let p = previous, p != e.page { counts[p, default: [:]][e.page, default: 0] += 1 }
                previous = e.page
            }
        }
        return counts.keys.sorted().map { page in
            let next = counts[page]!
            // Most frequent; ties by name, so the answer does not depend on hashing.
            let best = next.max { ($0.value, $1.key) < ($1.value, $0.key) }!
            return NextPage(page: page, next: best.key, count: best.value, transitions: next.values.reduce(0, +))
        }
    }

    private func rageClicks() -> [RageClicks] {
        var byView: [String: (bursts: Int, clicks: Int, actors: Set<ActorID>)] = [:]
        for (key, list) in clicks where list.count >= Self.rageMinimumClicks {
            var run = 0
            var last: Int64?
            func close() {
                if run >= Self.rageMinimumClicks {
                    byView[key.view, default: (0, 0, [])].bursts += 1
                    byView[key.view]!.clicks += run
                    byView[key.view]!.actors.insert(key.actor)
                }
            }
            for order in list.sorted() {
                if let l = last, order.time - l <= Self.rageGapMilliseconds {
                    run += 1
                } else {
                    close()
                    run = 1
                }
                last = order.time
            }
            close()
        }
        return byView.map { RageClicks(view: $0.key, page: clickPages[$0.key], bursts: $0.value.bursts, clicks: $0.value.clicks, actors: $0.value.actors.count) }
            .sorted { ($0.bursts, $1.view) > ($1.bursts, $0.view) }
    }
}

extension CollectorStore {
    /// The activity summary over the events `filter` selects, from one scan.
    public func activity(_ filter: EventFilter) throws(StoreError) -> ActivitySummary {
        var counter = ActivityCounter()
        try scan(counter.query(filter)) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
