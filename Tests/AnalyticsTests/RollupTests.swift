import Analytics
import EventModel
import EventStore
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The SQLite store's rollup tables against the events they summarize: seeded traffic (late
/// batches, ties, bursts and sessions over midnight, three versions, two apps, shared devices and
/// devices merged into their one user) is stored, and every
/// report figure read from the rollups must equal the same figure read from the events (the store
/// reads the events while an app waits in `rollup_backlog`), after appends, after a rebuild by
/// replay, and after a prune.
@Suite struct RollupTests {
    typealias F = AnalyticsFixture

    /// Everything a report reads from a store for one filter.
    struct Answers: Hashable, CustomStringConvertible {
        var totals: StoreTotals
        var events: [EventCount]
        var pages: [PageActivity]
        var paths: [PathCount]
        var activity: ActivitySummary
        var funnels: [FunnelResult]
        var retention: [RetentionResult]

        init(_ store: any CollectorStore, _ filter: EventFilter) throws {
            totals = try store.totals(filter)
            events = try store.eventCounts(filter)
            pages = try store.pageActivity(filter)
            paths = try store.pathCounts(filter)
            activity = try store.activity(filter)
            let home = EventKind(type: "page_enter", name: "Home"), cart = EventKind(type: "page_enter", name: "Cart")
            let tap = EventKind(type: "click", name: "tap")
            funnels = try ActorKind.allCases.map { by in
                try store.funnel(FunnelDefinition(steps: [home, tap, cart], withinMilliseconds: 90_000_000, by: by), filter: filter)
            }
            retention = try [ActorKind.user, .device].map { by in
                try store.retention(RetentionDefinition(start: home, returning: tap, periods: 3, by: by), filter: filter)
            }
        }

        var description: String { "\(totals) \(events.count) kinds \(activity.days.count) days \(activity.rageClicks) \(activity.nextPages)" }
    }

    static let d = F.day
    /// Filters with whole-day bounds (the rollups answer them) and one without (the events do).
    static let filters: [EventFilter] = [
        .all, EventFilter(appKey: "shop"), EventFilter(appKey: "blog"), EventFilter(appKey: "shop", appVersion: "1.0"),
        EventFilter(appVersion: "2.0"), EventFilter(since: F.day0 + d), EventFilter(until: F.day0 + 2 * d),
        EventFilter(appKey: "shop", since: F.day0 + d, until: F.day0 + 3 * d),
        EventFilter(appKey: "shop", appVersion: "2.0", since: F.day0 + 2 * d),
        EventFilter(appKey: "shop", since: F.day0 + 5_000),
    ]

    /// Seeded batches: times cluster around midnights and a few bases, so clicks make bursts
    /// that cross midnight and sessions have enters on both sides of it; batches arrive out of
    /// time order, and some events repeat (duplicates are not added twice).
    static func traffic(seed: UInt64) -> [EventBatch] {
        var g = SeededGenerator(seed: seed)
        var batches: [EventBatch] = []
        var id = 0
        var sent: [JSONValue] = []
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &g)! }
        for _ in 0..<60 {
            var events: [JSONValue] = []
            for _ in 0..<Int.random(in: 1...30, using: &g) {
                id += 1
                let base = F.day0 + Int64.random(in: 1...3, using: &g) * d + pick([-1_500, 0, 40_000, -900_000])
                let t = base + Int64.random(in: -2_000...2_000, using: &g)
                let type = pick(["page_enter", "page_enter", "page_leave", "click", "click", "click", "app_start"])
                // Shared devices d1–d3 (any user or none), and devices p1–p3 of one person each
                // (signed in or not), so identity merge has devices to merge, linked before or
                // after their anonymous events.
                let k = Int.random(in: 1...3, using: &g)
                let person: (user: String?, device: String?) =
                    Int.random(in: 0..<3, using: &g) == 0 ? (pick(["person-\(k)", nil]), "p\(k)") : (pick(["u1", "u2", nil]), pick(["d1", "d2", "d3", nil]))
                let page: String? = pick(["Home", "List", "Cart", nil])
                let title: JSONValue? = pick([.string("Buy"), .string("Back"), .int(3), nil])
                var props = JSONObject()
                if let title { props["title"] = title }
                let e = TrackEvent(
                    id: "e\(id)", ts: t, type: EventType(rawValue: type)!, name: type == "click" ? pick(["tap", "press"]) : page ?? "Unnamed",
                    page: page, path: type == "click" ? pick(["V/Buy", "V/Back", nil]) : nil, session: pick(["s1", "s2", "s3", nil]),
                    user: person.user, device: person.device,
                    duration: type == "page_leave" ? pick([250, 900, nil, Int64.random(in: -5...5_000, using: &g)]) : nil, props: props)
                events.append(e.json)
            }
            if !sent.isEmpty, Int.random(in: 0..<4, using: &g) == 0 { events.append(pick(sent)) }
            sent += events
            batches.append(EventBatch(appKey: pick(["shop", "shop", "blog"]), appVersion: pick(["1.0", "2.0", nil]), events: events))
        }
        // Bursts across two midnights: 2 + 3 clicks across day 1's, 3 + 1 across day 2's, so a
        // range starting or ending there holds a burst of 3 that the whole run does not show.
        let midnight1 = F.day0 + d, midnight2 = F.day0 + 2 * d
        let rage = [midnight1 - 900, midnight1 - 300, midnight1 + 200, midnight1 + 700, midnight1 + 1_400]
            + [midnight2 - 2_100, midnight2 - 1_400, midnight2 - 700, midnight2 + 100]
        batches.insert(
            EventBatch(
                appKey: "shop", appVersion: "2.0",
                events: rage.enumerated().map {
                    TrackEvent(id: "r\($0.offset)", ts: $0.element, type: .click, name: "tap", path: "V/Rage", user: "u9").json
                }), at: batches.count / 2)
        return batches
    }

    static func answers(_ store: any CollectorStore) throws -> [Answers] { try filters.map { try Answers(store, $0) } }

    /// The answers read from the events: the file's apps put in the backlog, opened read-only
    /// (a read-only store does not rebuild them).
    static func answersFromEvents(_ path: String) throws -> [Answers] {
        _ = try sqlite(
            path,
            "INSERT OR REPLACE INTO rollup_backlog VALUES ('shop', 0), ('blog', 0); INSERT OR REPLACE INTO rollup_pages_backlog VALUES ('shop', 0), ('blog', 0)")
        let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        defer { store.close() }
        #expect(try store.activityRollup(.all) == nil)
        return try answers(store)
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func rollupsAnswerAsTheEventsDoAfterAppendsRebuildAndPrune(_ seed: UInt64) throws {
        let path = Fixtures.temporaryDirectory("rollups").appendingPathComponent("events.sqlite").path
        var store = try SQLiteEventStore(path: path)
        for b in Self.traffic(seed: seed) { _ = try store.append(b) }
        #expect(try store.totals(.all).events > 500)
        for f in Self.filters {
            // Whole-day bounds come from the rollups; a bound inside a day does not.
            #expect((try store.activityRollup(f) != nil) == (f.since.map(UTCDay.isStart) ?? true))
        }
        let appended = try Self.answers(store)
        #expect(appended.contains { !$0.activity.rageClicks.isEmpty } && appended.contains { !$0.activity.nextPages.isEmpty })
        #expect(appended[0].funnels.allSatisfy { $0.steps[2].actors > 0 } && appended[0].retention.allSatisfy { !$0.cohorts.isEmpty })
        // Devices to merge, and the links table says what the stored events say.
        #expect(try store.deviceLinks(appKey: nil).merged().count >= 2)
        #expect(try store.deviceLinks(appKey: nil) == store.scannedDeviceLinks(appKey: nil))
        store.close()
        let fromEvents = try Self.answersFromEvents(path)
        for (i, f) in Self.filters.enumerated() { #expect(appended[i] == fromEvents[i], "filter \(f)") }

        // A rebuild replays the backlog's events into emptied rollups (the stale rows below go).
        _ = try sqlite(path, "DELETE FROM rollup_transitions; UPDATE rollup_click_runs SET clicks = clicks + 1")
        store = try SQLiteEventStore(path: path)
        #expect(try store.activityRollup(.all) == nil)
        var progress: [RollupProgress] = []
        try store.rebuildRollups(chunk: 100) { progress.append($0) }
        #expect(try sqlite(path, "SELECT COUNT(*) FROM rollup_backlog; SELECT COUNT(*) FROM rollup_pages_backlog") == ["0", "0"])
        #expect(Set(progress.map(\.appKey)) == ["blog", "shop"])
        for app in ["blog", "shop"] {
            let last = progress.last { $0.appKey == app }
            #expect(last != nil && last?.replayed == last?.total)
        }
        #expect(progress.map(\.total).reduce(0, max) > 100)
        let rebuilt = try Self.answers(store)
        for (i, f) in Self.filters.enumerated() { #expect(rebuilt[i] == fromEvents[i], "filter \(f)") }

        // A prune inside a day: the rollups of what is left equal the events left.
        let outcome = try store.prune(before: F.day0 + 2 * Self.d + 1_000, appKey: "shop", chunk: 7)
        #expect(outcome.events > 0)
        #expect(try store.activityRollup(EventFilter(appKey: "shop")) == nil)
        #expect(try store.activityRollup(EventFilter(appKey: "blog")) != nil)
        try store.rebuildRollups { _ in }
        #expect(try store.activityRollup(EventFilter(appKey: "shop")) != nil)
        let pruned = try Self.answers(store)
        store.close()
        let prunedFromEvents = try Self.answersFromEvents(path)
        for (i, f) in Self.filters.enumerated() { #expect(pruned[i] == prunedFromEvents[i], "filter \(f)") }
        #expect(pruned[1].totals.events < appended[1].totals.events)
    }

    @Test func aDatabaseOfSchemaVersion4GetsItsRollupsFromTheMigrationAndARebuild() throws {
        let path = Fixtures.temporaryDirectory("rollups").appendingPathComponent("events.sqlite").path
        var store = try SQLiteEventStore(path: path)
        for b in Self.traffic(seed: 4) { _ = try store.append(b) }
        let appended = try Self.answers(store)
        store.close()
        // Version 4 as it was: no rollup tables (in their own files since version 10), KVC error
        // index or time zone map (version 11), its time index, and its index for funnels.
        let tables = try ["rollups", "rollup_pages"].flatMap { schema in
            try sqlite(path, "SELECT '\(schema).' || name FROM \(schema).sqlite_master WHERE type = 'table' AND name LIKE 'rollup%'")
        }
        #expect(tables.count == 19)
        _ = try sqlite(
            path,
            tables.map { "DROP TABLE \($0);" }.joined()
                + "DROP TABLE snapshots; DROP TABLE circle_modes; DROP TABLE page_names; DROP INDEX events_kvc_errors; DROP TABLE event_zones; "
                + "CREATE INDEX events_corrected_ts ON events (app_key, corrected_ts); "
                + "CREATE INDEX events_kind_actor ON events (type, name, corrected_ts, app_key, user_id, device_id); PRAGMA user_version = 4;")
        store = try SQLiteEventStore(path: path)
        #expect(try store.schemaVersion() == SQLiteEventStore.currentSchemaVersion)
        #expect(try sqlite(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_kind_actor'") == ["0"])
        // Migration 10 moves the rollups of migration 5 (every app in the backlog) into the single
        // file's layout; the rollups files are then made anew at this build's layout, watermarks
        // at 0: the workers fill them from every stored event, no app waiting for a rebuild.
        #expect(try sqlite(path, "SELECT COUNT(*) FROM rollup_backlog; SELECT COUNT(*) FROM rollup_pages_backlog") == ["0", "0"])
        #expect(try Self.answers(store) == appended)
        try store.rebuildRollups { _ in }
        #expect(try store.activityRollup(.all) != nil)
        #expect(try Self.answers(store) == appended)
        store.close()
    }

    @Test func aFunnelOrRetentionOfKindsNeverStoredCountsNobody() throws {
        let store = try F.store([[F.event("1", "click", "tap", at: F.day0, user: "u")]])
        let nowhere = EventKind(type: "click", name: "BUY"), nothing = EventKind(type: "page_enter", name: "Nowhere")
        for steps in [[nowhere, nothing], [nowhere, nothing, EventKind(type: "click", name: "tap")], [nothing]] {
            let funnel = try store.funnel(FunnelDefinition(steps: steps), filter: .all)
            #expect(funnel.steps.map(\.actors) == Array(repeating: 0, count: steps.count))
        }
        let retention = try store.retention(RetentionDefinition(start: nothing, returning: nowhere), filter: EventFilter(since: F.day0))
        #expect(retention.cohorts.isEmpty)
    }

    @Test func aLateClickMergesTwoRunsIntoABurstAndALateEnterSplitsATransition() throws {
        let t = F.day0
        func click(_ id: String, _ at: Int64) -> JSONValue { F.event(id, "click", "BUY", at: t + at, user: "u", page: "P", path: "V/Buy") }
        func enter(_ id: String, _ page: String, _ at: Int64) -> JSONValue {
            F.event(id, "page_enter", page, at: t + at, user: "u", session: "s", page: page)
        }
        // Two runs of one click each, 2 s apart, then the click between them: one run of 3.
        // Home → Cart, then a late List between them: Home → List → Cart.
        let store = try F.store([[click("1", 0), click("3", 2_000), enter("a", "Home", 0), enter("c", "Cart", 2_000)], [click("2", 1_000), enter("b", "List", 1_000)]])
        #expect(try store.activityRollup(.all) != nil)
        let a = try store.activity(.all)
        #expect(a.rageClicks == [RageClicks(view: "V/Buy", page: "P", bursts: 1, clicks: 3, actors: 1)])
        #expect(
            a.nextPages == [
                NextPage(page: "Home", next: "List", count: 1, transitions: 1), NextPage(page: "List", next: "Cart", count: 1, transitions: 1),
            ])
    }
}
