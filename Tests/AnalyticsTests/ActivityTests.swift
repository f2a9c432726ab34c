import Analytics
import EventModel
import EventStore
import SQLiteStore
import Testing

@Suite struct ActivityTests {
    typealias F = AnalyticsFixture

    @Test(arguments: FixtureStore.allCases) func dailyTrendCountsEventsActorsDevicesAndSessionsPerUTCDay(_ kind: FixtureStore) throws {
        let d0 = F.day0, d2 = F.day0 + 2 * F.day
        let store = try F.store([[
            F.event("1", "click", "x", at: d0, user: "u1", device: "d1", session: "s1"),
            F.event("2", "click", "x", at: d0 + 1, user: "u1", device: "d2", session: "s2"),
            F.event("3", "click", "x", at: d0 + F.day - 1, device: "d3"),  // last ms of day 0; actor d3
            F.event("4", "click", "x", at: d0),  // nobody's: an event, no actor
            F.event("5", "click", "x", at: d2, user: "u1", device: "d1", session: "s1"),
        ]], on: kind)
        let a = try store.activity(.all)
        #expect(
            a.days == [
                DailyActivity(day: UTCDay("2026-11-01")!, events: 4, actors: 2, devices: 3, sessions: 2),
                DailyActivity(day: UTCDay("2026-11-02")!, events: 0, actors: 0, devices: 0, sessions: 0),
                DailyActivity(day: UTCDay("2026-11-03")!, events: 1, actors: 1, devices: 1, sessions: 1),
            ])
    }

    /// Rows stored before times were checked may hold any 64-bit time: a click at Int64.min
    /// beside a burst, and a burst at the very end of 64 bits, are counted without a trap.
    @Test func clickGapsAtTheEdgesOf64BitsSaturate() {
        var counter = ActivityCounter()
        let times: [Int64] = [Int64.min, F.day0, F.day0 + 500, F.day0 + 1_000, Int64.max - 1_000, Int64.max - 500, Int64.max]
        for (i, t) in times.enumerated() {
            counter.add(ScannedEvent(seq: Int64(i), appKey: "shop", time: t, type: "click", name: "Buy", path: "V/Buy", user: "u"))
        }
        #expect(counter.result().rageClicks == [RageClicks(view: "V/Buy", page: nil, bursts: 2, clicks: 6, actors: 1)])
    }

    @Test(arguments: FixtureStore.allCases) func dwellPercentilesAreNearestRank(_ kind: FixtureStore) throws {
        var events = (1...10).map { F.event("h\($0)", "page_leave", "Home", at: F.day0 + Int64($0), page: "Home", duration: Int64($0) * 100) }
        events += [10, 30, 20].enumerated().map { F.event("c\($0.offset)", "page_leave", "CartLeave", at: F.day0, duration: $0.element) }
        events.append(F.event("n", "page_leave", "Home", at: F.day0, page: "Home"))  // no duration: not counted
        let a = try F.store([events], on: kind).activity(.all)
        #expect(
            a.dwell == [
                // Pages without `page` go by name.
                DwellPercentiles(page: "CartLeave", leaves: 3, p50: 20, p90: 30),
                DwellPercentiles(page: "Home", leaves: 10, p50: 500, p90: 900),
            ])
    }

    @Test(arguments: FixtureStore.allCases) func nextPageFollowsEachSessionInTimeOrder(_ kind: FixtureStore) throws {
        let t = F.day0
        func enter(_ id: String, _ page: String, _ at: Int64, session: String?, user: String? = "u") -> JSONValue {
            F.event(id, "page_enter", page, at: t + at, user: user, session: session, page: page)
        }
        let store = try F.store([[
            // s1: Home → List → Detail → Home → List (List stored before Detail but later in time).
            enter("1", "Home", 0, session: "s1"), enter("3", "Detail", 20, session: "s1"), enter("2", "List", 10, session: "s1"),
            enter("4", "Home", 30, session: "s1"), enter("5", "List", 40, session: "s1"),
            // s2: Home → Home (a repeat, no transition) → Cart.
            enter("6", "Home", 0, session: "s2"), enter("7", "Home", 5, session: "s2"), enter("8", "Cart", 6, session: "s2"),
            // No session: the user's own sequence: Home → Cart.
            enter("9", "Home", 0, session: nil, user: "v"), enter("10", "Cart", 1, session: nil, user: "v"),
        ]], on: kind)
        let a = try store.activity(.all)
        #expect(
            a.nextPages == [
                NextPage(page: "Detail", next: "Home", count: 1, transitions: 1),
                // Home → List twice, → Cart twice: the tie goes to the name first in order.
                NextPage(page: "Home", next: "Cart", count: 2, transitions: 4),
                NextPage(page: "List", next: "Detail", count: 1, transitions: 1),
            ])
    }

    @Test(arguments: FixtureStore.allCases) func rageClicksAreBurstsOfThreeWithinASecondEach(_ kind: FixtureStore) throws {
        let t = F.day0
        func click(_ id: String, _ at: Int64, user: String, path: String = "V/Buy") -> JSONValue {
            F.event(id, "click", "BUY", at: t + at, user: user, page: "Detail", path: path)
        }
        let store = try F.store([[
            // u1: 4 clicks a second or less apart (one burst), a pause, 2 more (too few).
            click("1", 0, user: "u1"), click("2", 1_000, user: "u1"), click("3", 1_500, user: "u1"), click("4", 2_400, user: "u1"),
            click("5", 4_000, user: "u1"), click("6", 4_100, user: "u1"),
            // u2: 3 clicks, but the gaps are 1001 ms: none.
            click("7", 0, user: "u2"), click("8", 1_001, user: "u2"), click("9", 2_002, user: "u2"),
            // u3: 3 quick clicks on another view, and 3 on V/Buy split across two views (none there).
            click("10", 0, user: "u3", path: "V/Other"), click("11", 10, user: "u3", path: "V/Other"), click("12", 20, user: "u3", path: "V/Other"),
        ]], on: kind)
        let a = try store.activity(.all)
        #expect(
            a.rageClicks == [
                RageClicks(view: "V/Buy", page: "Detail", bursts: 1, clicks: 4, actors: 1),
                RageClicks(view: "V/Other", page: "Detail", bursts: 1, clicks: 3, actors: 1),
            ])
    }
}
