import EventModel
public import EventStore

/// Events and distinct actors, devices and sessions on one UTC day.
public struct DailyActivity: Sendable, Hashable {
    public var day: UTCDay
    public var events: Int
    /// Distinct actors (people: `ActorKind.user`, identity merge applied); events with neither a
    /// user nor a device count for none.
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

extension ActivitySummary {
    /// The longest run of days `days` fills with zeros between the first and the last.
    public static let maximumFilledDays: Int64 = 1_000

    /// The figures of `rollup`: days filled, percentiles, the most frequent next pages, rage
    /// clicks by view. Every way of answering (rollup tables, a scan) ends here.
    public init(_ rollup: ActivityRollup) {
        self.init(
            days: Self.days(rollup.days), dwell: Self.dwell(rollup.dwell), nextPages: Self.nextPages(rollup.transitions),
            rageClicks: Self.rageClicks(rollup.bursts, pages: rollup.viewPages))
    }

    private static func days(_ days: [ActivityRollup.Day]) -> [DailyActivity] {
        var byNumber: [Int64: ActivityRollup.Day] = [:]
        for d in days { byNumber[d.day.number] = d }
        guard let first = byNumber.keys.min(), let last = byNumber.keys.max() else { return [] }
        let numbers = last - first <= maximumFilledDays ? Array(first...last) : byNumber.keys.sorted()
        return numbers.map { n in
            let d = byNumber[n] ?? ActivityRollup.Day(day: UTCDay(number: n), events: 0, actors: 0, devices: 0, sessions: 0)
            return DailyActivity(day: d.day, events: d.events, actors: d.actors, devices: d.devices, sessions: d.sessions)
        }
    }

    private static func dwell(_ dwell: [DwellPercentiles]) -> [DwellPercentiles] { dwell.sorted { $0.page < $1.page } }

    private static func nextPages(_ transitions: [ActivityRollup.Transition]) -> [NextPage] {
        var counts: [String: [String: Int]] = [:]
        for t in transitions { counts[t.from, default: [:]][t.to, default: 0] += t.count }
        return counts.keys.sorted().compactMap { page in
            let next = counts[page]!.filter { $0.value > 0 }
            // Most frequent; ties by name, so the answer does not depend on hashing.
            guard let best = next.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return nil }
            return NextPage(page: page, next: best.key, count: best.value, transitions: next.values.reduce(0, +))
        }
    }

    private static func rageClicks(_ bursts: [ActivityRollup.Burst], pages: [String: String]) -> [RageClicks] {
        var byView: [String: (bursts: Int, clicks: Int, actors: Set<ActorID>)] = [:]
        for b in bursts {
            byView[b.view, default: (0, 0, [])].bursts += 1
            byView[b.view]!.clicks += b.clicks
            byView[b.view]!.actors.insert(ActorID(appKey: b.appKey, id: b.actor))
        }
        return byView.map { RageClicks(view: $0.key, page: pages[$0.key], bursts: $0.value.bursts, clicks: $0.value.clicks, actors: $0.value.actors.count) }
            .sorted { ($0.bursts, $1.view) > ($1.bursts, $0.view) }
    }
}

/// Computes an `ActivityRollup` from one scan of every selected event (any order), by the
/// definitions in ActivityRollup.swift: the scan's way of answering, for every store and filter.
public struct ActivityCounter {
    public static var rageGapMilliseconds: Int64 { ActivityRollup.rageGapMilliseconds }
    public static var rageMinimumClicks: Int { ActivityRollup.rageMinimumClicks }

    private struct Day {
        var events = 0
        var actors = Set<ActorID>()
        var devices = Set<ActorID>()
        var sessions = Set<ActorID>()
    }
    /// A page sequence or a click run's owner: app key, app version (none as ""), and an id.
    private struct SequenceKey: Hashable {
        var appKey: String
        var appVersion: String
        var id: String
    }
    private struct ClickKey: Hashable {
        var owner: SequenceKey
        var view: String
    }

    private var days: [Int64: Day] = [:]
    private var durations: [String: [Int64: Int]] = [:]
    private var enters: [SequenceKey: [(order: EventOrder, page: String)]] = [:]
    private var clicks: [ClickKey: [EventOrder]] = [:]
    private var viewPages: [String: (seq: Int64, page: String)] = [:]
    /// Identity merge for the days' actors and the bursts' actors.
    private let links: DeviceLinks

    /// `links`: the store's device links (`AnalyticsStore.deviceLinks`).
    public init(links: DeviceLinks = .none) { self.links = links }

    /// The scan that feeds this counter: every event `filter` selects.
    public func query(_ filter: EventFilter) -> EventScanQuery { EventScanQuery(filter: filter) }

    public mutating func add(_ e: ScannedEvent) {
        let day = UTCDay(time: e.time).number
        days[day, default: Day()].events += 1
        if let actor = ActorKind.user.actor(of: e, links: links) { days[day]!.actors.insert(actor) }
        if let device = ActorKind.device.actor(of: e) { days[day]!.devices.insert(device) }
        if let session = ActorKind.session.actor(of: e) { days[day]!.sessions.insert(session) }
        let version = e.appVersion ?? ""
        switch e.type {
        case "page_leave":
            if let d = e.duration { durations[e.page ?? e.name, default: [:]][d, default: 0] += 1 }
        case "page_enter":
            if let id = e.session ?? ActorKind.user.sentID(user: e.user, device: e.device, session: nil) {
                enters[SequenceKey(appKey: e.appKey, appVersion: version, id: id), default: []].append((EventOrder(e), e.page ?? e.name))
            }
        case "click":
            // A click run is the clicks of one actor as sent (its burst counts for the person).
            guard let sent = ActorKind.user.sentID(user: e.user, device: e.device, session: nil) else { return }
            let view = e.path ?? e.name
            clicks[ClickKey(owner: SequenceKey(appKey: e.appKey, appVersion: version, id: sent), view: view), default: []]
                .append(EventOrder(e))
            if let page = e.page, viewPages[view].map({ e.seq < $0.seq }) ?? true { viewPages[view] = (e.seq, page) }
        default:
            break
        }
    }

    public func rollup() -> ActivityRollup {
        ActivityRollup(
            days: days.map {
                ActivityRollup.Day(
                    day: UTCDay(number: $0.key), events: $0.value.events, actors: $0.value.actors.count, devices: $0.value.devices.count,
                    sessions: $0.value.sessions.count)
            },
            dwell: durations.map { page, counts in
                let sorted = counts.sorted { $0.key < $1.key }
                let n = sorted.reduce(0) { $0 + $1.value }
                func percentile(_ p: Int) -> Int64 {
                    let rank = ActivityRollup.nearestRank(p, of: n)
                    var seen = 0
                    for (duration, leaves) in sorted {
                        seen += leaves
                        if seen >= rank { return duration }
                    }
                    return sorted.last?.key ?? 0
                }
                return DwellPercentiles(page: page, leaves: n, p50: percentile(50), p90: percentile(90))
            },
            transitions: transitions(), bursts: bursts(), viewPages: viewPages.mapValues(\.page))
    }

    public func result() -> ActivitySummary { ActivitySummary(rollup()) }

    private func transitions() -> [ActivityRollup.Transition] {
        var counts: [String: [String: Int]] = [:]
        for (_, list) in enters {
            var previous: String?
            for e in list.sorted(by: { $0.order < $1.order }) {
                if let p = previous, p != e.page { counts[p, default: [:]][e.page, default: 0] += 1 }
                previous = e.page
            }
        }
        return counts.flatMap { from, next in next.map { ActivityRollup.Transition(from: from, to: $0.key, count: $0.value) } }
    }

    private func bursts() -> [ActivityRollup.Burst] {
        var out: [ActivityRollup.Burst] = []
        for (key, list) in clicks where list.count >= Self.rageMinimumClicks {
            var run = 0
            var last: Int64?
            func close() {
                if run >= Self.rageMinimumClicks {
                    let actor = links.actor(appKey: key.owner.appKey, sentID: key.owner.id) ?? key.owner.id
                    out.append(ActivityRollup.Burst(view: key.view, appKey: key.owner.appKey, actor: actor, clicks: run))
                }
            }
            for order in list.sorted() {
                if let l = last, order.time.subtractingSaturating(l) <= Self.rageGapMilliseconds {
                    run += 1
                } else {
                    close()
                    run = 1
                }
                last = order.time
            }
            close()
        }
        return out
    }
}

extension AnalyticsStore {
    /// The activity summary over the events `filter` selects: from the store's rollup tables
    /// where it has them for `filter`, else from one scan.
    public func activity(_ filter: EventFilter) throws(StoreError) -> ActivitySummary {
        if let rollup = try activityRollup(filter) { return ActivitySummary(rollup) }
        return try scannedActivity(filter)
    }

    /// The activity summary from one scan, whatever the store has (what the rollups must equal).
    public func scannedActivity(_ filter: EventFilter) throws(StoreError) -> ActivitySummary {
        var counter = ActivityCounter(links: try deviceLinks(appKey: filter.appKey))
        try scan(counter.query(filter)) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
