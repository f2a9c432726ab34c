import Analytics
import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import Testing

/// Identity merge (docs/reports.md "Actors and identity merge") on both stores: a device seen with
/// exactly one user counts its anonymous events as that user's, before and after the sign-in, in
/// funnels, retention, unique users per day, rage clicks and export's `actor`; a device seen with
/// several users (shared) keeps its anonymous events on the device actor.
@Suite(.timeLimit(.minutes(5))) struct IdentityMergeTests {
    typealias F = AnalyticsFixture

    static let view = EventKind(type: "page_enter", name: "Product")
    static let signIn = EventKind(type: "click", name: "SignIn")
    static let pay = EventKind(type: "click", name: "Pay")

    /// One day of a sign-up funnel:
    /// - ann (device d-ann): views anonymously, signs in, pays signed in: one person;
    /// - bob (device d-bob): views anonymously, signs in, pays after signing out (anonymous again);
    /// - the shared device d-shop: viewed anonymously, then ven signs in and pays, and later wes
    ///   signs in on it: linked to two users, its anonymous view stays the device's.
    static func signUps() -> [[JSONValue]] {
        let t = F.day0 + F.hour, m = F.minute
        return [
            [
                F.event("a1", "page_enter", "Product", at: t, device: "d-ann", session: "s-a"),
                F.event("b1", "page_enter", "Product", at: t, device: "d-bob", session: "s-b"),
                F.event("s1", "page_enter", "Product", at: t, device: "d-shop", session: "s-s"),
            ],
            [
                F.event("a2", "click", "SignIn", at: t + m, user: "ann", device: "d-ann", session: "s-a"),
                F.event("b2", "click", "SignIn", at: t + m, user: "bob", device: "d-bob", session: "s-b"),
                F.event("s2", "click", "SignIn", at: t + m, user: "ven", device: "d-shop", session: "s-s"),
            ],
            [
                F.event("a3", "click", "Pay", at: t + 2 * m, user: "ann", device: "d-ann", session: "s-a"),
                F.event("b3", "click", "Pay", at: t + 2 * m, device: "d-bob", session: "s-b"),
                F.event("s3", "click", "Pay", at: t + 2 * m, user: "ven", device: "d-shop", session: "s-s"),
                F.event("s4", "click", "SignIn", at: t + 3 * F.hour, user: "wes", device: "d-shop", session: "s-w"),
            ],
        ]
    }

    @Test(arguments: FixtureStore.allCases) func anAnonymousViewThenSignInThenPurchaseIsOneUserCompleting(_ kind: FixtureStore) throws {
        let store = try F.store(Self.signUps(), on: kind)
        defer { store.close() }
        let steps = [Self.view, Self.signIn, Self.pay]
        let byUser = try store.funnel(FunnelDefinition(steps: steps, withinMilliseconds: F.hour), filter: .all)
        // Step 1: ann, bob (their devices' anonymous views) and d-shop (shared: its view stays the
        // device's). Steps 2 and 3: ann and bob; ven signed in and paid but never viewed as ven.
        #expect(byUser.steps.map(\.actors) == [3, 2, 2])
        // Whole days are read from SQLite's rollups; a range inside a day from the events.
        let inside = try store.funnel(FunnelDefinition(steps: steps, withinMilliseconds: F.hour), filter: EventFilter(since: F.day0 + 1))
        #expect(inside.steps.map(\.actors) == [3, 2, 2])
        // By device nothing merges: d-ann and d-bob complete; d-shop too (ven's events are on it).
        let byDevice = try store.funnel(FunnelDefinition(steps: steps, withinMilliseconds: F.hour, by: .device), filter: .all)
        #expect(byDevice.steps.map(\.actors) == [3, 3, 3])
    }

    @Test(arguments: FixtureStore.allCases) func aSignInLaterStillMergesEarlierAnonymousEventsAndASecondUserUndoesIt(_ kind: FixtureStore) throws {
        let t = F.day0 + F.hour, m = F.minute
        let store = try F.store([[F.event("1", "page_enter", "Product", at: t, device: "d")]], on: kind)
        defer { store.close() }
        let funnel = FunnelDefinition(steps: [Self.view, Self.pay], withinMilliseconds: F.hour)
        #expect(try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: [F.event("2", "click", "Pay", at: t + m, user: "u")])).stored == 1)
        // u paid on another device; d is linked to nobody yet: two actors, neither completes.
        #expect(try store.funnel(funnel, filter: .all).steps.map(\.actors) == [1, 0])
        // A sign-in stored later, at a later time, links d to u: the earlier view is u's.
        #expect(try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: [F.event("3", "click", "SignIn", at: t + F.day, user: "u", device: "d")])).stored == 1)
        #expect(try store.funnel(funnel, filter: .all).steps.map(\.actors) == [1, 1])
        #expect(try store.deviceLinks(appKey: "shop").user(appKey: "shop", device: "d") == "u")
        // Another app's links are its own.
        #expect(try store.deviceLinks(appKey: "blog").isEmpty)
        // A second user on d makes it shared: the view goes back to the device.
        #expect(try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: [F.event("4", "click", "SignIn", at: t + F.day, user: "v", device: "d")])).stored == 1)
        #expect(try store.funnel(funnel, filter: .all).steps.map(\.actors) == [1, 0])
        #expect(try store.deviceLinks(appKey: nil).user(appKey: "shop", device: "d") == nil)
    }

    @Test(arguments: FixtureStore.allCases) func retentionCountsTheAnonymousStartOfAUserWhoSignsInLater(_ kind: FixtureStore) throws {
        let d0 = F.day0, day = F.day
        let store = try F.store([[
            // d3 launches anonymously on day 0; its user signs in on day 2 and comes back to Home.
            F.event("1", "app_start", "launch", at: d0 + F.hour, device: "d3"),
            F.event("2", "page_enter", "Home", at: d0 + 2 * day + F.hour, user: "u3", device: "d3"),
            // A shared device: its anonymous launch stays the device's; its users' Homes are theirs.
            F.event("3", "app_start", "launch", at: d0 + F.hour, device: "d-shared"),
            F.event("4", "page_enter", "Home", at: d0 + day, user: "p", device: "d-shared"),
            F.event("5", "page_enter", "Home", at: d0 + day, user: "q", device: "d-shared"),
        ]], on: kind)
        defer { store.close() }
        let start = EventKind(type: "app_start", name: "launch"), home = EventKind(type: "page_enter", name: "Home")
        let r = try store.retention(RetentionDefinition(start: start, returning: home, periods: 3), filter: .all)
        #expect(r.cohorts == [RetentionResult.Cohort(cohort: UTCDay(number: d0 / day), actors: 2, returned: [0, 0, 1])])
    }

    @Test(arguments: FixtureStore.allCases) func uniqueUsersPerDayAndRageClickActorsCountPeople(_ kind: FixtureStore) throws {
        let store = try F.store(Self.signUps(), on: kind)
        defer { store.close() }
        // Day 0: ann, bob, d-shop (its anonymous view), ven, wes = 5 people on 3 devices.
        for filter in [EventFilter.all, EventFilter(appKey: "shop"), EventFilter(since: F.day0 + 1)] {
            let day = try store.activity(filter).days.first
            #expect(day?.actors == 5, "\(filter)")
            #expect(day?.devices == 3, "\(filter)")
        }
        // Rage clicks: bob's device clicks Buy three times anonymously, then twice signed in;
        // two runs (each actor as sent) of one person.
        let t = F.day0 + 5 * F.hour
        let clicks = [0, 300, 600].map { F.event("r\($0)", "click", "Buy", at: t + Int64($0), device: "d-bob", path: "V/Buy") }
            + [0, 300, 600].map { F.event("q\($0)", "click", "Buy", at: t + 5_000 + Int64($0), user: "bob", device: "d-bob", path: "V/Buy") }
        #expect(try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: clicks)).stored == 6)
        for filter in [EventFilter.all, EventFilter(since: F.day0 + 1)] {
            #expect(try store.activity(filter).rageClicks == [RageClicks(view: "V/Buy", page: nil, bursts: 2, clicks: 6, actors: 1)], "\(filter)")
        }
    }

    @Test(arguments: FixtureStore.allCases) func exportsActorColumnIsThePerson(_ kind: FixtureStore) throws {
        let location = try kind.location()
        let store = try kind.open(location)
        for b in Self.signUps() { _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: b)) }
        store.close()
        let io = CapturedStreams()
        #expect(CollectorCLI.group.main(["export", "--db", location, "--format", "csv"], io: io) == .success, "\(io.standardError)")
        let rows = io.standardOutput.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first?.hasSuffix(",props,actor") == true)
        // id (column 3) → actor (the last column; props are {} here, so no comma inside them).
        let actors = Dictionary(uniqueKeysWithValues: rows.dropFirst().map { r in
            let cells = r.components(separatedBy: ",")
            return (cells[3], cells.last!)
        })
        #expect(actors == ["a1": "ann", "a2": "ann", "a3": "ann", "b1": "bob", "b2": "bob", "b3": "bob", "s1": "d-shop", "s2": "ven", "s3": "ven", "s4": "wes"])
    }
}

extension IdentityMergeTests {
    /// RollupTests' seeded traffic (shared devices, devices of one person, late batches) on both
    /// stores: the report's figures read from SQLite's rollups or PostgreSQL's rollups equal
    /// one scan of the events, identity merge included.
    @Test(arguments: FixtureStore.allCases) func summariesEqualTheScanWithMergedDevices(_ kind: FixtureStore) throws {
        let store = try kind.make()
        defer { store.close() }
        for b in RollupTests.traffic(seed: 5) { _ = try store.append(b) }
        #expect(try store.deviceLinks(appKey: nil).merged().count >= 2)
        for f in RollupTests.filters {
            #expect(try store.activity(f) == store.scannedActivity(f), "\(f)")
        }
    }
}

extension IdentityMergeTests {
    /// `report --rule` copies the rule's events into a scratch database: the store's links go
    /// with them, so a device whose sign-in is not among the rule's events still merges.
    @Test(arguments: FixtureStore.allCases) func aRulesReportMergesByTheStoresLinks(_ kind: FixtureStore) throws {
        let path = "HomeViewController-UIView-UIButton&0-0-0", t = F.day0 + F.hour
        let store = try F.store([[
            F.event("1", "click", "Home", at: t, device: "dk", path: path),
            F.event("2", "click", "Home", at: t + 1, user: "k", device: "dk2", path: path),
            F.event("3", "page_enter", "Login", at: t + 2, user: "k", device: "dk"),
        ]], on: kind)
        defer { store.close() }
        let report = try CollectorReport(store: store, rule: try DefinitionFixture.rule("home-button", path))
        #expect(report.totals.events == 2)
        #expect(report.activity.days.map(\.actors) == [1])
        #expect(report.activity.days.map(\.devices) == [2])
    }
}
