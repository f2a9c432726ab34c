import Analytics
import EventStore
import SQLiteStore
import Testing

@Suite struct RetentionTests {
    typealias F = AnalyticsFixture

    @Test(arguments: FixtureStore.allCases) func cohortsByFirstStartAndReturnsPerDay(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        let r = try store.retention(RetentionDefinition(start: F.launch, returning: F.home, periods: 3), filter: .all)
        // Day 0: alice [day 0, day 1] and bob [day 2] (his day-1 launch does not make a second cohort).
        // Day 1: carol [day 1, day 3] and device d-1 [never].
        #expect(
            r.cohorts == [
                .init(cohort: UTCDay("2026-11-01")!, actors: 2, returned: [1, 1, 1]),
                .init(cohort: UTCDay("2026-11-02")!, actors: 2, returned: [1, 0, 1]),
            ])
    }

    @Test(arguments: FixtureStore.allCases) func weeksStartOnMonday(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        let r = try store.retention(RetentionDefinition(start: F.launch, returning: F.home, period: .week, periods: 2), filter: .all)
        // 2026-11-01 is a Sunday (week of 2026-10-26); days 1 to 3 are in the week of 2026-11-02.
        // Week of 10-26: alice, bob; alice came back on the Sunday (week 0) and Monday (week 1), bob on Tuesday (week 1).
        // Week of 11-02: carol (back that week), d-1.
        #expect(
            r.cohorts == [
                .init(cohort: UTCDay("2026-10-26")!, actors: 2, returned: [1, 2]),
                .init(cohort: UTCDay("2026-11-02")!, actors: 2, returned: [1, 0]),
            ])
    }

    @Test(arguments: FixtureStore.allCases) func theRangeDecidesTheFirstStart(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        // From day 1 on, bob's first launch in range is on day 1.
        let r = try store.retention(
            RetentionDefinition(start: F.launch, returning: F.home, periods: 3),
            filter: EventFilter(since: F.day0 + F.day))
        #expect(r.cohorts == [.init(cohort: UTCDay("2026-11-02")!, actors: 3, returned: [1, 1, 1])])
    }

    @Test(arguments: FixtureStore.allCases) func byDeviceLeavesOutEventsWithoutDevice(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        let r = try store.retention(RetentionDefinition(start: F.launch, returning: F.launch, periods: 2, by: .device), filter: .all)
        #expect(r.cohorts == [.init(cohort: UTCDay("2026-11-02")!, actors: 1, returned: [1, 0])])
    }

    @Test func moreThanSixtyFourPeriodsAreCountedEachOnce() {
        // 70 periods, beyond one 64-bit word per actor: actor 0 starts on day 0 and returns on
        // days 0, 64 (twice), 65 and 69; actor 1 starts on day 1 and returns on day 70 (its
        // period 69) and day 71 (its period 70, past the table); actor 2 returns but never starts.
        let d = UTCDay.milliseconds, t = F.day0
        var counter = RetentionCounter(RetentionDefinition(start: F.launch, returning: F.home, periods: 70))
        let rows: [(kind: Int, actor: Int, day: Int64)] = [
            (0, 0, 0), (1, 0, 0), (1, 0, 64), (1, 0, 64), (1, 0, 65), (1, 0, 69),
            (0, 1, 1), (1, 1, 70), (1, 1, 71), (1, 2, 3),
        ]
        for (seq, r) in rows.enumerated() { counter.add(ActorEvent(kind: r.kind, actor: r.actor, time: t + r.day * d + 5, seq: Int64(seq))) }
        var day0 = [Int](repeating: 0, count: 70), day1 = day0
        for i in [0, 64, 65, 69] { day0[i] = 1 }
        day1[69] = 1
        #expect(
            counter.result().cohorts == [
                .init(cohort: UTCDay("2026-11-01")!, actors: 1, returned: day0),
                .init(cohort: UTCDay("2026-11-02")!, actors: 1, returned: day1),
            ])
    }

    /// Rows stored before times were checked may hold any 64-bit time: a day past 32 bits is
    /// clamped, never wrapped onto a valid day (a return 2^32 days after the cohort's next day
    /// counted as a return on that next day), and the far days of one actor still meet.
    @Test func daysBeyondThirtyTwoBitsNeverWrapOntoValidDays() {
        let d = UTCDay.milliseconds, t = F.day0, day0 = t / d
        var counter = RetentionCounter(RetentionDefinition(start: F.launch, returning: F.home, periods: 3))
        counter.add(ActorEvent(kind: 0, actor: 0, time: t, seq: 1))
        counter.add(ActorEvent(kind: 1, actor: 0, time: (day0 + 1 + (1 << 32)) * d, seq: 2))
        counter.add(ActorEvent(kind: 0, actor: 1, time: Int64.max, seq: 3))
        counter.add(ActorEvent(kind: 1, actor: 1, time: Int64.max - 1, seq: 4))
        counter.add(ActorEvent(kind: 0, actor: 2, time: Int64.min, seq: 5))
        let cohorts = counter.result().cohorts
        #expect(cohorts.map(\.actors) == [1, 1, 1])
        #expect(cohorts.first { $0.cohort == UTCDay("2026-11-01")! }?.returned == [0, 0, 0])
        #expect(cohorts.last?.returned == [1, 0, 0])
    }
}
