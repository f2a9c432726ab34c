import Analytics
import EventModel
import EventStore
import SQLiteStore
import Testing

@Suite struct FunnelTests {
    typealias F = AnalyticsFixture

    func steps(_ r: FunnelResult) -> [Int] { r.steps.map(\.actors) }

    /// Rows stored before times were checked may hold any 64-bit time: a gap past 64 bits is
    /// past every window, never a trap, and one just inside the widest window counts.
    @Test func gapsBetweenTimesAtTheEdgesOf64BitsAreChecked() {
        var counter = FunnelCounter(FunnelDefinition(steps: [F.home, F.add], withinMilliseconds: Int64.max))
        counter.add(ActorEvent(kind: 0, actor: 0, time: Int64.min, seq: 1))
        counter.add(ActorEvent(kind: 0, actor: 1, time: -5, seq: 2))
        counter.add(ActorEvent(kind: 1, actor: 1, time: Int64.max - 10, seq: 3))
        counter.add(ActorEvent(kind: 1, actor: 0, time: Int64.max, seq: 4))
        #expect(steps(counter.result()) == [2, 1])
    }

    @Test(arguments: FixtureStore.allCases) func byUserCountsOrderWindowTiesAndActorsWithoutUser(_ kind: FixtureStore) throws {
        let store = try F.store(F.funnelEvents(), on: kind)
        let r = try store.funnel(FunnelDefinition(steps: [F.home, F.add, F.pay], withinMilliseconds: 10 * F.minute), filter: .all)
        // Step 1: alice, bob, carol, d-dave, eve, frank, gina, harry = 8 (the event without user or device is nobody's).
        // Step 2: alice, carol, d-dave, eve, gina, harry = 6 (bob's Add came first; eve's anonymous Add
        // is hers, d-x being linked to her alone; frank's tie went the wrong way).
        // Step 3: alice, gina = 2 (carol's Pay is 11 minutes after her Home; bob has no Add after Home).
        #expect(steps(r) == [8, 6, 2])
        #expect(r.steps.map(\.conversion) == [1, 6.0 / 8, 2.0 / 8])
        #expect(r.steps.map(\.step) == [F.home, F.add, F.pay])
    }

    @Test(arguments: FixtureStore.allCases) func byDeviceJoinsTheSignedInAndAnonymousEventsOfOneDevice(_ kind: FixtureStore) throws {
        let store = try F.store(F.funnelEvents(), on: kind)
        let r = try store.funnel(
            FunnelDefinition(steps: [F.home, F.add, F.pay], withinMilliseconds: 10 * F.minute, by: .device), filter: .all)
        // d-x (eve's device) reaches Add: step 2 is d-a, d-c, d-dave, d-x, d-g, d-h = 6, as eve does by user.
        #expect(steps(r) == [8, 6, 2])
    }

    @Test(arguments: FixtureStore.allCases) func aWiderWindowLetsCarolPay(_ kind: FixtureStore) throws {
        let store = try F.store(F.funnelEvents(), on: kind)
        let r = try store.funnel(FunnelDefinition(steps: [F.home, F.add, F.pay], withinMilliseconds: 11 * F.minute), filter: .all)
        #expect(steps(r) == [8, 6, 3])
        let edge = try store.funnel(FunnelDefinition(steps: [F.home, F.add, F.pay], withinMilliseconds: 11 * F.minute - 1), filter: .all)
        #expect(steps(edge) == [8, 6, 2])
    }

    @Test(arguments: FixtureStore.allCases) func theTimeFilterDropsEventsOutsideIt(_ kind: FixtureStore) throws {
        let store = try F.store(F.funnelEvents(), on: kind)
        // Until one hour: frank and gina (at +1h) are out.
        let r = try store.funnel(
            FunnelDefinition(steps: [F.home, F.add, F.pay], withinMilliseconds: 10 * F.minute),
            filter: EventFilter(until: F.day0 + F.hour))
        #expect(steps(r) == [6, 5, 1])
    }

    @Test(arguments: FixtureStore.allCases) func aRepeatedStepNeedsTwoEvents(_ kind: FixtureStore) throws {
        let t = F.day0
        let store = try F.store([[
            F.event("1", "page_enter", "Home", at: t, user: "once"),
            F.event("2", "page_enter", "Home", at: t, user: "twice"),
            F.event("3", "page_enter", "Home", at: t + 1, user: "twice"),
        ]], on: kind)
        let r = try store.funnel(FunnelDefinition(steps: [F.home, F.home]), filter: .all)
        #expect(steps(r) == [2, 1])
    }

    @Test(arguments: FixtureStore.allCases) func aLaterStartCanCompleteWhenAnEarlierOneTimedOut(_ kind: FixtureStore) throws {
        let t = F.day0
        let store = try F.store([[
            F.event("1", "page_enter", "Home", at: t, user: "u"),
            F.event("2", "page_enter", "Home", at: t + 50 * F.minute, user: "u"),
            F.event("3", "click", "Add", at: t + 70 * F.minute, user: "u"),
        ]], on: kind)
        let r = try store.funnel(FunnelDefinition(steps: [F.home, F.add]), filter: .all)
        #expect(steps(r) == [1, 1])
        let none = try store.funnel(FunnelDefinition(steps: [F.add, F.home]), filter: .all)
        #expect(steps(none) == [1, 0])
        #expect(none.steps[1].conversion == 0)
    }

    @Test(arguments: FixtureStore.allCases) func theStoresOwnScansGiveTheProtocolDefaultsRows(_ kind: FixtureStore) throws {
        let store = try F.store(F.funnelEvents(), on: kind)
        for query in [EventScanQuery(), EventScanQuery(kinds: [F.home, F.pay]), EventScanQuery(filter: EventFilter(since: F.day0 + 1, until: F.day0 + F.day))] {
            var fast: [ScannedEvent] = []
            try store.scan(query) { fast.append($0); return true }
            var reference: [ScannedEvent] = []
            try store.scanningEvents(query) { reference.append($0); return true }
            #expect(fast == reference)
            #expect(!fast.isEmpty)
        }
        for column in ActorKind.allCases {
            for filter in [EventFilter.all, EventFilter(appKey: "shop", since: F.day0 + 1, until: F.day0 + F.hour), EventFilter(appKey: "other")] {
                let query = ActorEventQuery(filter: filter, kinds: [F.home, F.add, F.pay], actor: column)
                var fast: [ActorEvent] = []
                try store.actorEvents(query) { fast.append($0); return true }
                var reference: [ActorEvent] = []
                try store.scanningActorEvents(query) { reference.append($0); return true }
                #expect(Self.meaning(fast) == Self.meaning(reference), "\(column), \(filter)")
                #expect(fast.isEmpty == (filter.appKey == "other" || column == .session))  // The fixture has no sessions.
            }
        }
    }

    @Test(arguments: FixtureStore.allCases) func actorsOfTwoAppsAreTwoActorsAndTheAppFilterPicksOne(_ kind: FixtureStore) throws {
        let t = F.day0
        // The same user id in two apps: a store with one app key skips reading it; this one has two.
        let store = try F.store([[F.event("s1", "page_enter", "Home", at: t, user: "u"), F.event("s2", "click", "Add", at: t + 1, user: "u")]], on: kind)
        for b in [[F.event("b1", "page_enter", "Home", at: t, user: "u")], [F.event("b2", "page_enter", "Home", at: t, user: "v")]] {
            #expect(try store.append(EventBatch(appKey: "blog", appVersion: "1.0", events: b)).stored == 1)
        }
        let funnel = FunnelDefinition(steps: [F.home, F.add])
        // shop/u reaches Add; blog/u and blog/v only Home.
        #expect(steps(try store.funnel(funnel, filter: .all)) == [3, 1])
        #expect(steps(try store.funnel(funnel, filter: EventFilter(appKey: "shop"))) == [1, 1])
        #expect(steps(try store.funnel(funnel, filter: EventFilter(appKey: "blog"))) == [2, 0])
        #expect(steps(try store.funnel(funnel, filter: EventFilter(appKey: "none"))) == [0, 0])
    }

    @Test func theCounterKeepsOneStatePerActorAcrossInterleavedRows() {
        // 6,000 actors' rows interleaved in time order: actor a has Home at 2a and Add at 2a + 1;
        // every third actor's Add comes first (time 2a − 1) and so does not count; every fifth
        // actor's Home and Add share a time, Add stored first (lower seq), so it does not count
        // either.
        var counter = FunnelCounter(FunnelDefinition(steps: [F.home, F.add]))
        var rows: [ActorEvent] = []
        for a in 0..<6_000 {
            let home = Int64(2 * a)
            let add = a % 3 == 0 ? home - 1 : a % 5 == 0 ? home : home + 1
            let (homeSeq, addSeq) = a % 5 == 0 ? (Int64(2 * a + 1), Int64(2 * a)) : (Int64(2 * a), Int64(2 * a + 1))
            rows.append(ActorEvent(kind: 0, actor: a, time: home, seq: homeSeq))
            rows.append(ActorEvent(kind: 1, actor: a, time: add, seq: addSeq))
        }
        for r in rows.sorted(by: { ($0.time, $0.seq) < ($1.time, $1.seq) }) { counter.add(r) }
        // Reaching Add: not a multiple of 3 nor of 5: 6,000 − 2,000 − 1,200 + 400 = 3,200.
        #expect(counter.result().steps.map(\.actors) == [6_000, 3_200])
    }

    @Test(arguments: FixtureStore.allCases) func rowsOfOneTimeFollowStorageOrderAcrossKindsAndDevices(_ kind: FixtureStore) throws {
        let t = F.day0
        // u's Home, Add, Home share one time; the index holds u's two Homes by device (d1 before
        // d2), the reverse of their storage order. By storage order u goes Home → Add → Home.
        // w's Add is stored before its Home at the same time: Home only.
        let store = try F.store([[
            F.event("1", "page_enter", "Home", at: t, user: "u", device: "d2"),
            F.event("2", "click", "Add", at: t, user: "u", device: "d1"),
            F.event("3", "page_enter", "Home", at: t, user: "u", device: "d1"),
            F.event("4", "click", "Add", at: t, user: "w"),
            F.event("5", "page_enter", "Home", at: t, user: "w"),
        ]], on: kind)
        #expect(steps(try store.funnel(FunnelDefinition(steps: [F.home, F.add, F.home]), filter: .all)) == [2, 1, 1])
        var rows: [ActorEvent] = []
        try store.actorEvents(ActorEventQuery(kinds: [F.home, F.add], inTimeOrder: true)) { rows.append($0); return true }
        #expect(rows.map(\.kind) == [0, 1, 0, 1, 0])
        #expect(rows.map(\.actor) == [0, 0, 0, 1, 1])
        #expect(rows.map(\.seq) == rows.map(\.seq).sorted())
    }

    /// What actor rows say, whatever order they come in and however actors are numbered: each
    /// event's kind and time by seq, and which events share an actor.
    static func meaning(_ rows: [ActorEvent]) -> (events: [Int64: [Int64]], actors: Set<Set<Int64>>) {
        var events: [Int64: [Int64]] = [:]
        var byActor: [Int: Set<Int64>] = [:]
        for r in rows {
            events[r.seq, default: []].append(contentsOf: [Int64(r.kind), r.time])
            byActor[r.actor, default: []].insert(r.seq)
        }
        return (events, Set(byActor.values))
    }
}
