import Dispatch
public import EventModel
import Synchronization
public import SystemCalls

/// Delivers events to reporters on a queue of its own, so reporting never slows or breaks the app.
///
/// `submit` only appends to a buffer; a `WorkQueue` (one thread of the system's own, as every background thread of the agent) drains it and
/// calls every reporter in turn (one queue hop per burst of events, not per event). A reporter that throws is announced once through `diagnostics` and keeps receiving
/// events (it may recover); the others are never affected. When more than `capacity` events
/// wait, new ones are dropped and counted rather than growing memory without bound.
///
/// Like swift-log's `LoggingSystem`: `bootstrap` sets the process-wide `shared` instance once;
/// tests create their own instances and never touch it.
public final class ReportingSystem: BackgroundService {
    /// Counters since the system started.
    public struct Statistics: Sendable, Hashable {
        public var submitted = 0
        public var delivered = 0
        /// Dropped because `capacity` events were already waiting.
        public var dropped = 0
        /// Failed `report` or `flush` calls, all reporters together.
        public var failures = 0

        public init(submitted: Int = 0, delivered: Int = 0, dropped: Int = 0, failures: Int = 0) {
            self.submitted = submitted
            self.delivered = delivered
            self.dropped = dropped
            self.failures = failures
        }
    }

    private struct State {
        var statistics = Statistics()
        /// Submitted, not yet taken by the queue.
        var buffer: [TrackEvent] = []
        /// Whether a drain is queued or running: a burst of events costs one wake-up, not one each.
        var drainScheduled = false
        /// Submitted, not yet delivered (buffered or being delivered).
        var pending = 0
        /// Reporters (by position) whose failure was already announced.
        var announced: Set<Int> = []
    }

    public let reporters: [any Reporter]
    /// The most events that may wait for delivery.
    public let capacity: Int
    /// How long the queue waits after the first event of a burst before draining, so that a burst
    /// costs one wake-up of the queue's thread (a wake-up costs the app thread more than the event).
    public let coalescing: Duration
    /// Delivers on a thread of its own, in order (a `WorkQueue`).
    private let queue: WorkQueue
    private let state = Mutex(State())
    private let diagnostics: @Sendable (ReporterFailure) -> Void
    /// The most events a drained buffer's room is kept for: a burst larger than that is not held
    /// in memory after it was delivered.
    static let keptRoom = 1_024

    /// A system delivering to `reporters`, in order, on a thread named `label`.
    public init(
        _ reporters: [any Reporter], capacity: Int = 100_000, coalescing: Duration = .milliseconds(2),
        label: String = "autotrack.reporting",
        diagnostics: @escaping @Sendable (ReporterFailure) -> Void = ReporterFailure.writeToStandardError
    ) {
        self.reporters = reporters
        self.capacity = max(1, capacity)
        self.coalescing = coalescing
        self.queue = WorkQueue(threadName: label)
        self.diagnostics = diagnostics
    }

    /// Queues `event` for every reporter and returns at once; false when it was dropped (queue full).
    @discardableResult
    public func submit(_ event: consuming TrackEvent) -> Bool {
        // Moved into the buffer, not copied: the caller's event is handed over.
        var handed: TrackEvent? = consume event
        let (accepted, schedule) = state.withLock { s -> (Bool, Bool) in
            s.statistics.submitted += 1
            guard s.pending < capacity else {
                s.statistics.dropped += 1
                return (false, false)
            }
            s.pending += 1
            s.buffer.append(handed.take()!)
            if s.drainScheduled { return (true, false) }
            s.drainScheduled = true
            return (true, true)
        }
        if schedule {
            if coalescing > .zero {
                queue.async(after: coalescing) { self.drain() }
            } else {
                queue.async { self.drain() }
            }
        }
        return accepted
    }

    /// Delivers buffered events until the buffer is empty. `flush` drains first on the queue, so
    /// everything submitted before it is delivered even while a coalescing drain is still waiting.
    ///
    /// A delivered batch's array, emptied, becomes the buffer again (up to `keptRoom` events), so
    /// `submit` on the app's thread appends into room already made instead of growing a new array
    /// after every drain; the arrays are made and freed here, on the queue.
    private func drain() {
        var emptied: [TrackEvent] = []
        while true {
            let batch = state.withLock { s -> [TrackEvent] in
                if s.buffer.isEmpty {
                    if emptied.capacity > s.buffer.capacity { swap(&emptied, &s.buffer) }
                    s.drainScheduled = false
                    return []
                }
                // The buffer goes to delivery, the emptied array (if any) takes its place.
                var taken: [TrackEvent] = []
                swap(&taken, &emptied)
                swap(&taken, &s.buffer)
                return taken
            }
            if batch.isEmpty { return }
            var delivered = consume batch
            for event in delivered { deliver(event) }
            if delivered.capacity <= ReportingSystem.keptRoom {
                delivered.removeAll(keepingCapacity: true)
                emptied = consume delivered
            }
        }
    }

    /// Waits until every event submitted before this call was delivered and each reporter flushed,
    /// at most `timeout`; false when the time ran out.
    @discardableResult
    public func flush(timeout: Duration = .seconds(10)) -> Bool {
        waitForQueue(timeout: timeout, flushingReporters: true)
    }

    /// Waits until every event submitted before this call was handed to the reporters, at most
    /// `timeout`, without calling their `flush`: for a caller that waits on the reporters' far
    /// end itself (a tracking pipeline flushes its shipper once, to its own deadline).
    @discardableResult
    public func handOver(timeout: Duration) -> Bool {
        waitForQueue(timeout: timeout, flushingReporters: false)
    }

    private func waitForQueue(timeout: Duration, flushingReporters: Bool) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async {
            self.drain()
            if flushingReporters {
                for (i, r) in self.reporters.enumerated() {
                    do { try r.flush() } catch { self.fail(reporter: i, operation: "flush", error: error, eventID: nil) }
                }
            }
            done.signal()
        }
        return done.wait(timeout: .now() + .nanoseconds(timeout.waitNanoseconds)) == .success
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    package var serviceName: String { "reporting system" }

    /// Started by the first event (or `flush`).
    package func start() { queue.start() }

    /// Delivers what waits (a burst's coalescing cut short), then ends the thread, within
    /// `grace`; events submitted later are delivered on the caller's thread.
    @discardableResult
    package func stop(grace: Duration) -> Bool { queue.stop(grace: grace) }

    private func deliver(_ event: TrackEvent) {
        var delivered = true
        for (i, r) in reporters.enumerated() {
            do { try r.report(event) } catch {
                delivered = false
                fail(reporter: i, operation: "report", error: error, eventID: event.id)
            }
        }
        state.withLock { s in
            s.pending -= 1
            if delivered { s.statistics.delivered += 1 }
        }
    }

    private func fail(reporter index: Int, operation: String, error: any Error, eventID: String?) {
        let first = state.withLock { s in
            s.statistics.failures += 1
            return s.announced.insert(index).inserted
        }
        guard first else { return }
        diagnostics(
            ReporterFailure(
                reporterIndex: index, reporterType: String(reflecting: type(of: reporters[index])), operation: operation,
                eventID: eventID, error: String(describing: error)))
    }
}

extension ReportingSystem {
    private static let bootstrapped = Mutex<ReportingSystem?>(nil)
    private static let fallback = ReportingSystem([NoOpReporter()], capacity: 1, label: "autotrack.reporting.noop")

    /// Sets the process-wide system; allowed once per process, like `LoggingSystem.bootstrap`.
    public static func bootstrap(_ reporters: [any Reporter]) throws(ReportingSystemError) {
        try bootstrap(ReportingSystem(reporters))
    }

    /// Sets the process-wide system to `system`; allowed once per process.
    public static func bootstrap(_ system: ReportingSystem) throws(ReportingSystemError) {
        let ok = bootstrapped.withLock { current in
            guard current == nil else { return false }
            current = system
            return true
        }
        if !ok { throw ReportingSystemError.alreadyBootstrapped }
    }

    /// The bootstrapped system, or one that drops everything before `bootstrap`.
    public static var shared: ReportingSystem {
        bootstrapped.withLock { $0 } ?? fallback
    }
}

/// Misuse of the process-wide reporting system.
public enum ReportingSystemError: Error, Sendable, Hashable, CustomStringConvertible {
    case alreadyBootstrapped

    public var description: String {
        switch self {
        case .alreadyBootstrapped:
            return "ReportingSystem.bootstrap was called twice; call it once at start-up, and give tests their own ReportingSystem instances"
        }
    }
}
