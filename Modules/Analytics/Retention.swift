public import EventStore

/// A retention table: who starts, what counts as coming back, and in which periods.
public struct RetentionDefinition: Sendable, Hashable {
    public var start: EventKind
    public var returning: EventKind
    public var period: RetentionPeriod
    /// Periods counted per cohort, the cohort's own first.
    public var periods: Int
    public var by: ActorKind

    public init(start: EventKind, returning: EventKind, period: RetentionPeriod = .day, periods: Int = 7, by: ActorKind = .user) {
        self.start = start
        self.returning = returning
        self.period = period
        self.periods = periods
        self.by = by
    }
}

/// Cohorts by the period of each actor's first `start` event, and how many came back in each
/// period after it.
public struct RetentionResult: Sendable, Hashable {
    public struct Cohort: Sendable, Hashable {
        /// The first day of the cohort's period.
        public var cohort: UTCDay
        public var actors: Int
        /// `returned[i]`: cohort actors with a `return` event in period cohort + i.
        public var returned: [Int]

        public init(cohort: UTCDay, actors: Int, returned: [Int]) {
            self.cohort = cohort
            self.actors = actors
            self.returned = returned
        }

        /// `returned[i] / actors`.
        public func rate(_ i: Int) -> Double { actors == 0 ? 0 : Double(returned[i]) / Double(actors) }
    }

    public var definition: RetentionDefinition
    /// Earliest cohort first; only cohorts with actors.
    public var cohorts: [Cohort]

    public init(definition: RetentionDefinition, cohorts: [Cohort]) {
        self.definition = definition
        self.cohorts = cohorts
    }
}

/// Counts a retention table over the start and return kinds' `ActorEvent`s (any order).
///
/// An actor's cohort is the period of its first `start` event (by corrected time, ties by storage
/// order) among the events read; `returned[i]` counts the cohort's actors with at least one
/// `return` event in period cohort + i, whether before or after the start event within the
/// cohort's own period (i = 0). When start and return are the same kind, the start event
/// itself is a return in period 0.
public struct RetentionCounter {
    public let definition: RetentionDefinition
    /// Per actor number, its first start (time, seq), or nil.
    private var firstStart: [(time: Int64, seq: Int64)?] = []
    /// Per return event, its actor (high 32 bits) and the first day of its period (low 32 bits).
    private var returns: [UInt64] = []

    public init(_ definition: RetentionDefinition) {
        self.definition = definition
    }

    /// The kinds read: start (index 0) and return (index 1 when it is another kind).
    private var kinds: [EventKind] {
        definition.start == definition.returning ? [definition.start] : [definition.start, definition.returning]
    }

    /// The rows that feed this counter: start and return events, by `definition.by`.
    public func query(_ filter: EventFilter) -> ActorEventQuery {
        ActorEventQuery(filter: filter, kinds: kinds, actor: definition.by)
    }

    public mutating func add(_ e: ActorEvent) {
        precondition(e.actor >= 0 && e.actor <= Int(UInt32.max), "actor numbers are dense from 0")
        if e.kind == 0 {
            if e.actor >= firstStart.count { firstStart.append(contentsOf: repeatElement(nil, count: e.actor + 1 - firstStart.count)) }
            if let s = firstStart[e.actor], (s.time, s.seq) <= (e.time, e.seq) {} else { firstStart[e.actor] = (e.time, e.seq) }
        }
        if e.kind == 1 || definition.start == definition.returning {
            // Valid times' days fit 32 bits; a day past them (a row stored before EventTime's
            // check) is clamped, never wrapped onto a valid day.
            let day = UInt32(bitPattern: Int32(clamping: definition.period.start(of: e.time).number))
            returns.append(UInt64(e.actor) << 32 | UInt64(day))
        }
    }

    public func result() -> RetentionResult {
        let n = definition.periods
        // Per actor: the index of its cohort in `days` (the first day of its first start's
        // period), -1 without a start; and one bit per period it came back in (`words` words
        // each), so each (actor, period) counts once however many returns it holds.
        var days: [Int64] = []
        var dayIndex: [Int64: Int] = [:]
        let cohortOf = firstStart.map { start -> Int in
            guard let start else { return -1 }
            // Clamped as the returns' days are (`add`), so days past 32 bits still meet.
            let day = Int64(Int32(clamping: definition.period.start(of: start.time).number))
            if let i = dayIndex[day] { return i }
            dayIndex[day] = days.count
            days.append(day)
            return days.count - 1
        }
        let words = (max(n, 1) + 63) / 64
        var bits = [UInt64](repeating: 0, count: cohortOf.count * words)
        for key in returns {
            let actor = Int(key >> 32)
            guard actor < cohortOf.count, cohortOf[actor] >= 0 else { continue }
            let day = Int64(Int32(bitPattern: UInt32(truncatingIfNeeded: key)))
            let (i, off) = (day - days[cohortOf[actor]]).quotientAndRemainder(dividingBy: definition.period.days)
            if off == 0, i >= 0, i < n { bits[actor * words + Int(i) / 64] |= 1 << UInt64(i % 64) }
        }
        var actors = [Int](repeating: 0, count: days.count)
        var returned = [Int](repeating: 0, count: days.count * n)
        for (actor, c) in cohortOf.enumerated() where c >= 0 {
            actors[c] += 1
            for w in 0..<words {
                var b = bits[actor * words + w]
                while b != 0 {
                    returned[c * n + w * 64 + b.trailingZeroBitCount] += 1
                    b &= b - 1
                }
            }
        }
        return RetentionResult(
            definition: definition,
            cohorts: days.indices.sorted { days[$0] < days[$1] }.map { c in
                RetentionResult.Cohort(cohort: UTCDay(number: days[c]), actors: actors[c], returned: Array(returned[c * n..<(c + 1) * n]))
            })
    }
}

extension AnalyticsStore {
    /// The retention table over the events `filter` selects.
    public func retention(_ definition: RetentionDefinition, filter: EventFilter) throws(StoreError) -> RetentionResult {
        var counter = RetentionCounter(definition)
        try actorEvents(counter.query(filter)) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
