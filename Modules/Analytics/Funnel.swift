import EventStore

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

/// Counts a funnel over the steps' `ActorEvent`s (any order; each actor's events are put in order
/// by corrected time, ties by storage order).
///
/// An actor reaches step k when it has events e1 < e2 < … < ek in that order matching steps
/// 1…k with `ek.time − e1.time ≤ within`. One pass per actor: `start[k]` is the latest step-1
/// time of any chain that reached step k so far (the latest start leaves the most room), and
/// an event matching step k extends the chain of step k − 1. An event that matches several
/// steps (a step repeated) serves one of them per chain: steps are tried from the last down.
public struct FunnelCounter {
    public let definition: FunnelDefinition
    /// The distinct kinds among the steps (what the store is asked for), and per kind the steps
    /// it matches (bit i = step i).
    private let kinds: [EventKind]
    private let kindSteps: [UInt64]
    private var rows: [ActorEvent] = []

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

    /// The rows that feed this counter: the steps' events, by `definition.by`.
    public func query(_ filter: EventFilter) -> ActorEventQuery {
        ActorEventQuery(filter: filter, kinds: kinds, actor: definition.by.column)
    }

    public mutating func add(_ e: ActorEvent) { rows.append(e) }

    public func result() -> FunnelResult {
        let n = definition.steps.count
        var reached = [Int](repeating: 0, count: n)
        var start = [Int64?](repeating: nil, count: n)
        for events in Self.byActor(rows) {
            for k in 0..<n { start[k] = nil }
            var deepest = -1
            for e in events {
                let steps = kindSteps[e.kind]
                for k in stride(from: n - 1, through: 0, by: -1) where steps & (1 << UInt64(k)) != 0 {
                    let candidate: Int64?
                    if k == 0 {
                        candidate = e.time
                    } else if let s = start[k - 1], e.time - s <= definition.withinMilliseconds {
                        candidate = s
                    } else {
                        candidate = nil
                    }
                    if let c = candidate, start[k].map({ c > $0 }) ?? true {
                        start[k] = c
                        deepest = max(deepest, k)
                    }
                }
            }
            if deepest >= 0 { for k in 0...deepest { reached[k] += 1 } }
        }
        let first = reached.first ?? 0
        return FunnelResult(
            definition: definition,
            steps: zip(definition.steps, reached).map {
                FunnelResult.Step(step: $0, actors: $1, conversion: first == 0 ? 0 : Double($1) / Double(first))
            })
    }

    /// Each actor's rows in order of time, ties by storage order (actor numbers are dense, so a
    /// counting sort groups them).
    static func byActor(_ rows: [ActorEvent]) -> [ArraySlice<ActorEvent>] {
        var actors = 0
        for r in rows where r.actor >= actors { actors = r.actor + 1 }
        var bounds = [Int](repeating: 0, count: actors + 1)
        for r in rows { bounds[r.actor + 1] += 1 }
        for a in 0..<actors { bounds[a + 1] += bounds[a] }
        var next = bounds
        var grouped = rows
        for r in rows {
            grouped[next[r.actor]] = r
            next[r.actor] += 1
        }
        for a in 0..<actors {
            grouped[bounds[a]..<bounds[a + 1]].sort { ($0.time, $0.seq) < ($1.time, $1.seq) }
        }
        return (0..<actors).map { grouped[bounds[$0]..<bounds[$0 + 1]] }
    }
}

extension CollectorStore {
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
