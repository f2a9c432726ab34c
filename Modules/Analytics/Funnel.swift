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
    /// The rows so far, in full chunks of `chunkSize` and the one being filled: an array grown by
    /// doubling would copy every row again at each step, into fresh memory that costs a page
    /// fault per 4 KiB (measured on the project's machine: about 2.5 µs each).
    private var chunks: [[Timed]] = []
    private var current: [Timed] = []
    private static let chunkSize = 8192

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

    public mutating func add(_ e: ActorEvent) {
        precondition(e.actor >= 0 && e.actor <= Int(Int32.max) && e.kind >= 0 && e.kind < kinds.count, "an actor row out of range: \(e)")
        if current.count == Self.chunkSize {
            chunks.append(current)
            current = []
        }
        if current.capacity == 0 { current.reserveCapacity(Self.chunkSize) }
        current.append(Timed(time: e.time, seq: e.seq, actor: Int32(e.actor), kind: Int32(e.kind)))
    }

    public func result() -> FunnelResult {
        let n = definition.steps.count
        var reached = [Int](repeating: 0, count: n)
        // start[k]: the chain's step-1 time, valid where bit k of `started` is set.
        var start = [Int64](repeating: 0, count: n)
        Self.forEachActor(chunks + [current]) { events in
            var started: UInt64 = 0
            var deepest = -1
            for e in events {
                var steps = kindSteps[Int(e.kind)]
                while steps != 0 {
                    // The last step first: an event extends a chain once, as the deepest step it can.
                    let k = 63 - steps.leadingZeroBitCount
                    steps &= ~(1 << UInt64(k))
                    let candidate: Int64
                    if k == 0 {
                        candidate = e.time
                    } else if started & (1 << UInt64(k - 1)) != 0, e.time - start[k - 1] <= definition.withinMilliseconds {
                        candidate = start[k - 1]
                    } else {
                        continue
                    }
                    if started & (1 << UInt64(k)) == 0 || candidate > start[k] {
                        start[k] = candidate
                        started |= 1 << UInt64(k)
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

    /// One row: its time, storage order, actor and kind.
    struct Timed {
        var time: Int64
        var seq: Int64
        var actor: Int32
        var kind: Int32

        static func < (a: Timed, b: Timed) -> Bool { a.time < b.time || (a.time == b.time && a.seq < b.seq) }
    }

    /// Calls `body` with each actor's rows in order of time, ties by storage order. Actor numbers
    /// are dense, so a counting sort groups the rows; each actor's few rows are then put in order
    /// by insertion (cheap on the runs of time-ordered rows a store usually gives).
    static func forEachActor(_ chunks: [[Timed]], _ body: (UnsafeMutableBufferPointer<Timed>) -> Void) {
        var actors = 0
        var total = 0
        for chunk in chunks {
            total += chunk.count
            for r in chunk where Int(r.actor) >= actors { actors = Int(r.actor) + 1 }
        }
        var next = [Int](repeating: 0, count: actors + 1)
        for chunk in chunks { for r in chunk { next[Int(r.actor) + 1] += 1 } }
        for a in 0..<actors { next[a + 1] += next[a] }
        let bounds = next
        var grouped = [Timed](unsafeUninitializedCapacity: total) { buffer, count in
            for chunk in chunks {
                for r in chunk {
                    (buffer.baseAddress! + next[Int(r.actor)]).initialize(to: r)
                    next[Int(r.actor)] += 1
                }
            }
            count = total
        }
        grouped.withUnsafeMutableBufferPointer { all in
            for a in 0..<actors {
                let events = UnsafeMutableBufferPointer(rebasing: all[bounds[a]..<bounds[a + 1]])
                for i in events.indices.dropFirst() {
                    let e = events[i]
                    var j = i
                    while j > 0, e < events[j - 1] {
                        events[j] = events[j - 1]
                        j -= 1
                    }
                    events[j] = e
                }
                body(events)
            }
        }
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
