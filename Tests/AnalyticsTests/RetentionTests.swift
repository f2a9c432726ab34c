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
                .init(cohort: CalendarDay("2026-11-01")!, actors: 2, returned: [1, 1, 1]),
                .init(cohort: CalendarDay("2026-11-02")!, actors: 2, returned: [1, 0, 1]),
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
                .init(cohort: CalendarDay("2026-10-26")!, actors: 2, returned: [1, 2]),
                .init(cohort: CalendarDay("2026-11-02")!, actors: 2, returned: [1, 0]),
            ])
    }

    @Test(arguments: FixtureStore.allCases) func theRangeDecidesTheFirstStart(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        // From day 1 on, bob's first launch in range is on day 1.
        let r = try store.retention(
            RetentionDefinition(start: F.launch, returning: F.home, periods: 3),
            filter: EventFilter(since: F.day0 + F.day))
        #expect(r.cohorts == [.init(cohort: CalendarDay("2026-11-02")!, actors: 3, returned: [1, 1, 1])])
    }

    @Test(arguments: FixtureStore.allCases) func byDeviceLeavesOutEventsWithoutDevice(_ kind: FixtureStore) throws {
        let store = try F.store(F.retentionEvents(), on: kind)
        let r = try store.retention(RetentionDefinition(start: F.launch, returning: F.launch, periods: 2, by: .device), filter: .all)
        #expect(r.cohorts == [.init(cohort: CalendarDay("2026-11-02")!, actors: 1, returned: [1, 0])])
    }

    @Test func moreThanSixtyFourPeriodsAreCountedEachOnce() {
        // 70 periods, beyond one 64-bit word per actor: actor 0 starts on day 0 and returns on
        // days 0, 64 (twice), 65 and 69; actor 1 starts on day 1 and returns on day 70 (its
        // period 69) and day 71 (its period 70, past the table); actor 2 returns but never starts.
        let d = CalendarDay.millisecondsPerDay, t = F.day0
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
                .init(cohort: CalendarDay("2026-11-01")!, actors: 1, returned: day0),
                .init(cohort: CalendarDay("2026-11-02")!, actors: 1, returned: day1),
            ])
    }
}
