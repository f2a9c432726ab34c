public import EventStore

/// A funnel: ordered steps, a window from the first step, and whom to count.
public struct FunnelDefinition: Sendable, Hashable {
    public var steps: [EventKind]
    /// The last step reached must be no later than this many ms after step 1.
    public var withinMilliseconds: Int64
    public var by: ActorKind

    public init(steps: [EventKind], withinMilliseconds: Int64 = 3_600_000, by: ActorKind = .user) {
        self.steps = steps
        self.withinMilliseconds = withinMilliseconds
        self.by = by
    }
}

/// How many actors reached each step of a funnel.
public struct FunnelResult: Sendable, Hashable {
    public struct Step: Sendable, Hashable {
        public var step: EventKind
        /// Actors that reached this step (and so every step before it).
        public var actors: Int
        /// `actors` over step 1's actors; 0 when step 1 has none.
        public var conversion: Double

        public init(step: EventKind, actors: Int, conversion: Double) {
            self.step = step
            self.actors = actors
            self.conversion = conversion
        }
    }

    public var definition: FunnelDefinition
    public var steps: [Step]

    public init(definition: FunnelDefinition, steps: [Step]) {
        self.definition = definition
        self.steps = steps
    }
}

/// Counts a funnel over the steps' `ActorEvent`s, which must come in time order, ties by
/// storage order (`ActorEventQuery.inTimeOrder`, as `query` asks the store for; rows of one
/// kind and time, interchangeable here, in any order).
///
/// An actor reaches step k when it has events e1 < e2 < … < ek in that order matching steps
/// 1…k with `ek.time − e1.time ≤ within`. One state per actor, updated by each of its rows as it
/// comes: `start[k]` is the latest step-1 time of any chain that reached step k so far (the
/// latest start leaves the most room), and an event matching step k extends the chain of step
/// k − 1. An event that matches several steps (a step repeated) serves one of them per chain:
/// steps are tried from the last down. Memory: a few words per actor, none per row.
public struct FunnelCounter {
    public let definition: FunnelDefinition
    /// The distinct kinds among the steps (what the store is asked for), and per kind the steps
    /// it matches (bit i = step i).
    private let kinds: [EventKind]
    private let kindSteps: [UInt64]
    /// Per actor a, `start[a * steps + k]` for each step k, valid where bit k of `started[a]`
    /// is set: the steps its chains reached.
    private var start: [Int64] = []
    private var started: [UInt64] = []
    /// The last row's time, to check the order.
    private var last: Int64?

    public init(_ definition: FunnelDefinition) {
        precondition(definition.steps.count <= 64, "a funnel has at most 64 steps")
        self.definition = definition
        var kinds: [EventKind] = []
        var masks: [UInt64] = []
        for (i, s) in definition.steps.enumerated() {
            if let k = kinds.firstIndex(of: s) {
                masks[k] |= 1 << UInt64(i)
            } else {
                kinds.append(s)
                masks.append(1 << UInt64(i))
            }
        }
        self.kinds = kinds
        kindSteps = masks
    }

    /// The rows that feed this counter: the steps' events, by `definition.by`, in time order.
    public func query(_ filter: EventFilter) -> ActorEventQuery {
        ActorEventQuery(filter: filter, kinds: kinds, actor: definition.by, inTimeOrder: true)
    }

    /// Adds the next row (time order, ties by seq: a row earlier than the last stops the program).
    public mutating func add(_ e: ActorEvent) {
        if let last { precondition(last <= e.time, "funnel rows must come in time order: \(e) came after a row at \(last)") }
        last = e.time
        precondition(e.actor >= 0 && e.kind >= 0 && e.kind < kinds.count, "an actor row out of range: \(e)")
        let n = definition.steps.count
        if e.actor >= started.count {
            started.append(contentsOf: repeatElement(0, count: e.actor + 1 - started.count))
            start.append(contentsOf: repeatElement(0, count: started.count * n - start.count))
        }
        let base = e.actor * n
        var reached = started[e.actor]
        var steps = kindSteps[e.kind]
        while steps != 0 {
            // The last step first: an event extends a chain once, as the deepest step it can.
            let k = 63 - steps.leadingZeroBitCount
            steps &= ~(1 << UInt64(k))
            let candidate: Int64
            if k == 0 {
                candidate = e.time
            } else if reached & (1 << UInt64(k - 1)) != 0,
                // Checked: stored times may be any 64-bit integer (rows stored before EventTime's
                // check); rows come in time order, so an overflow is a gap past any window.
                case let (gap, overflow) = e.time.subtractingReportingOverflow(start[base + k - 1]),
                !overflow, gap <= definition.withinMilliseconds
            {
                candidate = start[base + k - 1]
            } else {
                continue
            }
            if reached & (1 << UInt64(k)) == 0 || candidate > start[base + k] {
                start[base + k] = candidate
                reached |= 1 << UInt64(k)
            }
        }
        started[e.actor] = reached
    }

    public func result() -> FunnelResult {
        let n = definition.steps.count
        var reached = [Int](repeating: 0, count: n)
        // An actor that reached step k reached every step before it (a chain to k passes them).
        for bits in started where bits != 0 {
            for k in 0...(63 - bits.leadingZeroBitCount) { reached[k] += 1 }
        }
        let first = reached.first ?? 0
        return FunnelResult(
            definition: definition,
            steps: zip(definition.steps, reached).map {
                FunnelResult.Step(step: $0, actors: $1, conversion: first == 0 ? 0 : Double($1) / Double(first))
            })
    }
}

extension AnalyticsStore {
    /// The funnel over the events `filter` selects.
    public func funnel(_ definition: FunnelDefinition, filter: EventFilter) throws(StoreError) -> FunnelResult {
        var counter = FunnelCounter(definition)
        try actorEvents(counter.query(filter)) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
