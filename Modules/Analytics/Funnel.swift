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

/// Counts a funnel over scanned events (any order; each actor's events are put in order by
/// corrected time, ties by storage order).
///
/// An actor reaches step k when it has events e1 < e2 < … < ek in that order matching steps
/// 1…k with `ek.time − e1.time ≤ within`. One pass per actor: `start[k]` is the latest step-1
/// time of any chain that reached step k so far (the latest start leaves the most room), and
/// an event matching step k extends the chain of step k − 1. An event that matches several
/// steps (a step repeated) serves one of them per chain: steps are tried from the last down.
public struct FunnelCounter {
    public let definition: FunnelDefinition
    /// Per actor, its step events: order and the steps the event matches (bit i = step i).
    private var byActor: [ActorID: [(order: EventOrder, steps: UInt64)]] = [:]
    private let stepMasks: [EventKind: UInt64]

    public init(_ definition: FunnelDefinition) {
        precondition(definition.steps.count <= 64, "a funnel has at most 64 steps")
        self.definition = definition
        var masks: [EventKind: UInt64] = [:]
        for (i, s) in definition.steps.enumerated() { masks[s, default: 0] |= 1 << UInt64(i) }
        stepMasks = masks
    }

    /// The scan that feeds this counter: only the steps' events.
    public func query(_ filter: EventFilter) -> EventScanQuery { EventScanQuery(filter: filter, kinds: definition.steps) }

    public mutating func add(_ e: ScannedEvent) {
        guard let mask = stepMasks[EventKind(type: e.type, name: e.name)], let actor = definition.by.actor(of: e) else { return }
        byActor[actor, default: []].append((EventOrder(e), mask))
    }

    public func result() -> FunnelResult {
        let n = definition.steps.count
        var reached = [Int](repeating: 0, count: n)
        var start = [Int64?](repeating: nil, count: n)
        for (_, events) in byActor {
            let ordered = events.sorted { $0.order < $1.order }
            for k in 0..<n { start[k] = nil }
            var deepest = -1
            for e in ordered {
                for k in stride(from: n - 1, through: 0, by: -1) where e.steps & (1 << UInt64(k)) != 0 {
                    let candidate: Int64?
                    if k == 0 {
                        candidate = e.order.time
                    } else if let s = start[k - 1], e.order.time - s <= definition.withinMilliseconds {
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
}

extension CollectorStore {
    /// The funnel over the events `filter` selects.
    public func funnel(_ definition: FunnelDefinition, filter: EventFilter) throws(StoreError) -> FunnelResult {
        var counter = FunnelCounter(definition)
        try scan(counter.query(filter)) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
