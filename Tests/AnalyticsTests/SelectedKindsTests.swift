import EventModel
import EventStore
import Foundation
@testable import SQLiteStore
import TestSupport
import Testing

/// A selector of clicks on exact paths (of some apps and versions, showing `content` as their
/// title or value when given): the store's side of `rule:ID` steps without the rules' patterns.
struct PathSelector: EventSelector {
    var type = "click"
    var paths: Set<String>
    var appKeys: Set<String>?
    var versions: Set<String?>?
    var content: String?
    var valueKey: String?

    func holds(_ appKey: String, _ appVersion: String?, _ path: String?) -> Bool {
        guard let path, paths.contains(path), appKeys?.contains(appKey) ?? true, versions?.contains(appVersion) ?? true else { return false }
        return true
    }

    func selects(appKey: String, appVersion: String?, path: String?, title: String?, value: String?) -> Bool {
        guard holds(appKey, appVersion, path) else { return false }
        guard let content, content != title else { return true }
        return valueKey != nil && content == value
    }

    func selection(appKey: String, appVersion: String?, path: String?, title: String?) -> EventSelection {
        guard holds(appKey, appVersion, path) else { return .none }
        guard let content, content != title else { return .every }
        return valueKey == nil ? .none : .byValue
    }
}

/// The SQLite store's answers from its rollups where a range starts or ends inside a day or an
/// hour (`pathDayCounts` over the hours of `rollup_events`), and for kinds chosen by selectors
/// (`actorEvents(_:selecting:_:)` over `rollup_kind_events` where a kind's events are all
/// selected): each equal to what the events give (the protocol's defaults over `events`), with
/// merged identities, after events past the watermarks, and after a rollups file of the previous
/// layout is made anew.
@Suite(.timeLimit(.minutes(5))) struct SelectedKindsTests {
    typealias F = AnalyticsFixture
    static let d = F.day, h = F.hour, m = F.minute

    /// Clicks and enters every 173 s over three days (every hour of them), of two apps and three
    /// versions, on paths and titles that some selectors take wholly and others in part, with
    /// values under `sku`.
    static func traffic(seed: UInt64, from start: Int64 = F.day0 + F.day, count: Int = 1_500, idPrefix: String = "t") -> [EventBatch] {
        var g = SeededGenerator(seed: seed)
        func pick<T>(_ values: [T]) -> T { values.randomElement(using: &g)! }
        var batches: [EventBatch] = []
        var events: [JSONValue] = []
        for i in 0..<count {
            let t = start + Int64(i) * 173_000 + Int64.random(in: 0...999, using: &g)
            let type = pick(["click", "click", "click", "page_enter"])
            let k = Int.random(in: 1...3, using: &g)
            // Devices p1–p3 of one person each (merged), d1–d3 shared by two users (not merged).
            let (user, device): (String?, String) =
                Bool.random(using: &g) ? (pick(["person-\(k)", nil]), "p\(k)") : (pick(["u1", "u2", nil]), "d\(k)")
            // "only" clicks lie on V/Only alone; "tap" and "press" on several paths or none.
            let name = type == "click" ? pick(["tap", "press", "only"]) : pick(["Home", "Cart"])
            let path: String? = type == "click" ? (name == "only" ? "V/Only" : pick(["V/Buy", "V/Back", nil])) : nil
            var props = JSONObject()
            if let title = pick([Optional("Buy"), "Back", nil]) { props["title"] = .string(title) }
            if let sku = pick([JSONValue?.some("sku-1"), .some("Buy"), .some(.int(9)), nil]) { props["sku"] = sku }
            events.append(
                TrackEvent(
                    id: "\(idPrefix)\(i)", ts: t, type: EventType(rawValue: type)!, name: name, page: type == "page_enter" ? name : nil, path: path,
                    session: "s\(i / 40)", user: user, device: device, props: props
                ).json)
            if events.count == 50 || i == count - 1 {
                // Batches out of time order now and then: late events in the blocks and hours.
                let batch = EventBatch(appKey: pick(["shop", "shop", "blog"]), appVersion: pick(["1.0", "2.0", nil]), events: events)
                if batches.count > 2, Int.random(in: 0..<5, using: &g) == 0 { batches.insert(batch, at: batches.count - 2) } else { batches.append(batch) }
                events = []
            }
        }
        return batches
    }

    /// Ranges with bounds on and inside days and hours.
    static let ranges: [(since: Int64?, until: Int64?)] = [
        (nil, nil), (F.day0 + d, F.day0 + 3 * d), (F.day0 + d + 5 * h, F.day0 + 3 * d + 7 * h),
        (F.day0 + d + 5 * h + 17 * m + 3_001, F.day0 + 3 * d + 7 * h + 42 * m), (F.day0 + 2 * d + 3 * h + 10 * m, F.day0 + 2 * d + 19 * h + 50 * m),
        (F.day0 + 2 * d + 9 * h + 5 * m, F.day0 + 2 * d + 9 * h + 55 * m), (F.day0 + d + 20 * h + 30 * m, F.day0 + 2 * d + 7 * h + 40 * m),
        (nil, F.day0 + 2 * d + 13 * h + 1), (F.day0 + 3 * d + 1, nil), (F.day0 + 2 * d + 5 * h, F.day0 + 2 * d + 5 * h),
    ]

    static let selectors: [PathSelector] = [
        // Part of kinds tap and press (their other paths, no path): read from the events.
        PathSelector(paths: ["V/Buy"]),
        // All of kind "only" for one app and version, none of it for the others: its blocks.
        PathSelector(paths: ["V/Only"], appKeys: ["shop"], versions: ["2.0"]),
        // All of kind "only": its blocks for every app and version.
        PathSelector(paths: ["V/Only"]),
        // Kind "only" by its title: in part.
        PathSelector(paths: ["V/Only"], content: "Buy"),
        // By title or value: it depends on each event's value.
        PathSelector(paths: ["V/Only", "V/Back"], content: "Buy", valueKey: "sku"),
        // Enters have no path: nothing.
        PathSelector(type: "page_enter", paths: ["V/Only"]),
    ]

    /// The rows in a form two implementations agree on: in time order (ties by seq, then
    /// kind), actors numbered again in order of first appearance (each call numbers its own).
    static func canonical(_ rows: [ActorEvent]) -> [ActorEvent] {
        var numbers: [Int: Int] = [:]
        return rows.sorted { ($0.time, $0.seq, $0.kind) < ($1.time, $1.seq, $1.kind) }.map { r in
            var r = r
            let n = numbers[r.actor] ?? numbers.count
            numbers[r.actor] = n
            r.actor = n
            return r
        }
    }

    /// Expects the store's rows of kinds with selectors to equal the default's over `events`,
    /// in time order and in any order, for every filter and actor kind; returns the rows counted.
    /// `fromRollupsAsTheyAre`: read the rollups without bringing them up to the last event first.
    @discardableResult
    static func expectSelectedRowsEqualTheEvents(
        _ store: SQLiteEventStore, _ label: String, fromRollupsAsTheyAre: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Int {
        var counted = 0
        let plain = [EventKind(type: "page_enter", name: "Home"), EventKind(type: "click", name: "only")]
        let selected = selectors.enumerated().map { (kind: plain.count + $0.offset, selector: $0.element) }
        let kinds = plain + selectors.indices.map { EventKind(type: "selected", name: "s\($0)") }
        for range in ranges {
            for filter in [EventFilter(since: range.since, until: range.until), EventFilter(appKey: "shop", since: range.since, until: range.until)]
                + [EventFilter(appKey: "shop", appVersion: "2.0", since: range.since, until: range.until)]
            {
                for actor in ActorKind.allCases {
                    for inTimeOrder in [true, false] {
                        let query = ActorEventQuery(filter: filter, kinds: kinds, actor: actor, inTimeOrder: inTimeOrder)
                        var fromRollups: [ActorEvent] = [], fromEvents: [ActorEvent] = []
                        if fromRollupsAsTheyAre {
                            try store.actorEventsFromRollups(query, selecting: selected.map { ($0.kind, $0.selector as any EventSelector) }) {
                                fromRollups.append($0)
                                return true
                            }
                        } else {
                            try store.actorEvents(query, selecting: selected) { fromRollups.append($0); return true }
                        }
                        try store.selectingActorEvents(query, selecting: selected) { fromEvents.append($0); return true }
                        let what = "\(label) \(filter) \(actor) \(inTimeOrder ? "in time order" : "any order")"
                        #expect(canonical(fromRollups) == canonical(fromEvents), "\(what)", sourceLocation: sourceLocation)
                        if inTimeOrder {
                            #expect(fromRollups.map { [$0.time, $0.seq] } == fromRollups.map { [$0.time, $0.seq] }.sorted { $0.lexicographicallyPrecedes($1) },
                                "\(what)", sourceLocation: sourceLocation)
                        }
                        counted += fromRollups.count
                    }
                }
            }
        }
        return counted
    }

    /// Expects the store's path-day counts to equal the default's over `events` for every range,
    /// app and version filter, and type and path restriction.
    static func expectPathDaysEqualTheEvents(_ store: SQLiteEventStore, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for range in ranges {
            for filter in [
                EventFilter(since: range.since, until: range.until), EventFilter(appKey: "shop", since: range.since, until: range.until),
                EventFilter(appKey: "blog", appVersion: "1.0", since: range.since, until: range.until),
            ] {
                for query in [
                    PathDayQuery(filter: filter), PathDayQuery(filter: filter, types: ["click"]), PathDayQuery(filter: filter, paths: ["V/Buy", "V/Only"]),
                    PathDayQuery(filter: filter, types: ["click"], valueKey: "sku"),
                ] {
                    #expect(try store.pathDayCounts(query) == (try store.countingPathDays(query)), "\(label) \(query)", sourceLocation: sourceLocation)
                }
            }
        }
    }

    func temporaryPath() -> String { Fixtures.temporaryDirectory("selected-kinds").appendingPathComponent("events.sqlite").path }

    @Test func kindsBySelectorAndPartDaysFromTheRollupsEqualTheEvents() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        for b in Self.traffic(seed: 1) { _ = try store.append(b) }
        // Identity merge has devices to merge: p1–p3 sent events with and without their person.
        #expect(try !store.deviceLinks(appKey: "shop").merged().isEmpty)
        #expect(try Self.expectSelectedRowsEqualTheEvents(store, "stored") > 10_000)
        try Self.expectPathDaysEqualTheEvents(store, "stored")
        // A range inside days reads the hours: the two sides of each part-day agree.
        let hours = try sqlite(path + "-rollups-pages", "SELECT SUM(\(RollupHours.sum(0..<24))) = SUM(events), COUNT(*) > 0 FROM rollup_events")
        #expect(hours == ["1|1"])
    }

    @Test func eventsPastTheWatermarksAreCountedOnce() throws {
        let store = try SQLiteEventStore(path: temporaryPath())
        defer { store.close() }
        for b in Self.traffic(seed: 2) { _ = try store.append(b) }
        try Self.expectSelectedRowsEqualTheEvents(store, "stored")
        // The workers stop; events stored after both watermarks (late ones among them) are
        // applied by the reads themselves.
        store.pauseRollupWorker(true)
        for b in Self.traffic(seed: 3, from: F.day0 + F.day + 7 * F.hour, count: 600, idPrefix: "tail") { _ = try store.append(b) }
        let (watermark, last) = try store.rollupPositions()
        #expect(watermark < last)
        try Self.expectSelectedRowsEqualTheEvents(store, "tail")
        try Self.expectPathDaysEqualTheEvents(store, "tail")
        // The kinds' blocks ahead of the paths and titles they are planned by (the pages file's
        // watermark behind): the events between the two watermarks tell those.
        for b in Self.traffic(seed: 4, from: F.day0 + 2 * F.day + 3 * F.hour, count: 300, idPrefix: "ahead") { _ = try store.append(b) }
        try store.ingestCurrent()  // every acknowledged event in `events`, then in the kinds' blocks
        while try store.advanceRollups(.kinds, limit: 100) > 0 {}
        let kinds = try store.rollupPositions(.kinds), pages = try store.rollupPositions(.pages)
        #expect(kinds.watermark == kinds.last && pages.watermark < kinds.watermark)
        try Self.expectSelectedRowsEqualTheEvents(store, "kinds ahead", fromRollupsAsTheyAre: true)
    }

    @Test func aRollupsFileOfThePreviousLayoutIsReadAroundThenMadeAnew() throws {
        let path = temporaryPath()
        var store = try SQLiteEventStore(path: path)
        for b in Self.traffic(seed: 5) { _ = try store.append(b) }
        _ = try store.totals(.all)
        store.close()
        // The previous layout: rollup_events without its hours.
        _ = try sqlite(
            path + "-rollups-pages",
            """
            CREATE TABLE old_events AS SELECT app_key, app_version, day, type, name, page, path, title, events, dwell_count, dwell_sum FROM rollup_events;
            DROP TABLE rollup_events; ALTER TABLE old_events RENAME TO rollup_events; PRAGMA user_version = \(RollupFile.layout - 1)
            """)
        _ = try sqlite(path + "-rollups", "PRAGMA user_version = \(RollupFile.layout - 1)")
        // A reader cannot make it anew: it reads the events, with their answers.
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try reader.activityRollup(.all) == nil)
        try Self.expectSelectedRowsEqualTheEvents(reader, "read-only")
        try Self.expectPathDaysEqualTheEvents(reader, "read-only")
        reader.close()
        store = try SQLiteEventStore(path: path)
        defer { store.close() }
        #expect(try store.activityRollup(.all) != nil)
        try Self.expectSelectedRowsEqualTheEvents(store, "made anew")
        try Self.expectPathDaysEqualTheEvents(store, "made anew")
        for suffix in ["-rollups", "-rollups-pages"] { #expect(try sqlite(path + suffix, "PRAGMA user_version") == ["\(RollupFile.layout)"]) }
        #expect(try sqlite(path + "-rollups-pages", "SELECT SUM(\(RollupHours.sum(0..<24))) = SUM(events) FROM rollup_events") == ["1"])
    }

    @Test func thePostgreSQLStoreGivesTheSameRowsAndCounts() throws {
        let sqlite = try SQLiteEventStore(path: temporaryPath())
        let pg = try FixtureStore.postgres.make()
        defer { sqlite.close(); pg.close() }
        for b in Self.traffic(seed: 6, count: 800) { #expect(try pg.append(b) == (try sqlite.append(b))) }
        let plain = [EventKind(type: "click", name: "only")]
        let selected = Self.selectors.enumerated().map { (kind: plain.count + $0.offset, selector: $0.element) }
        let kinds = plain + Self.selectors.indices.map { EventKind(type: "selected", name: "s\($0)") }
        for range in Self.ranges {
            for filter in [EventFilter(since: range.since, until: range.until), EventFilter(appKey: "shop", since: range.since, until: range.until)] {
                for query in [PathDayQuery(filter: filter), PathDayQuery(filter: filter, types: ["click"], valueKey: "sku")] {
                    #expect(try pg.pathDayCounts(query) == (try sqlite.pathDayCounts(query)), "\(query)")
                }
                let query = ActorEventQuery(filter: filter, kinds: kinds, inTimeOrder: true)
                var a: [ActorEvent] = [], b: [ActorEvent] = []
                try pg.actorEvents(query, selecting: selected) { a.append($0); return true }
                try sqlite.actorEvents(query, selecting: selected) { b.append($0); return true }
                // Each store numbers its own rows; the times, kinds and actors agree.
                #expect(Self.canonical(a).map { [$0.kind, $0.actor, Int($0.time)] } == Self.canonical(b).map { [$0.kind, $0.actor, Int($0.time)] }, "\(filter)")
            }
        }
    }

    @Test func aRangeIsCutIntoDaysHoursAndEdgesThatMeetEndToEnd() {
        for (since, until) in Self.ranges {
            let pieces = PathDayPiece.cover(since: since, until: until)
            if let since, let until, since >= until {
                #expect(pieces.isEmpty)
                continue
            }
            var at = since
            for piece in pieces {
                switch piece {
                case .days(let s, let u):
                    #expect(s.map { $0 * F.day } == at)
                    at = u.map { $0 * F.day }
                case .hours(let day, let hours):
                    #expect(day * F.day + Int64(hours.lowerBound) * F.hour == at)
                    at = day * F.day + Int64(hours.upperBound) * F.hour
                case .events(let s, let u):
                    #expect(s == at && u - s < 2 * F.hour)
                    at = u
                }
            }
            #expect(at == until, "\(String(describing: since)) \(String(describing: until)): \(pieces)")
        }
    }
}
