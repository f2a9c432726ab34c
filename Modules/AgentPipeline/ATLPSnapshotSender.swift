import ATLPClient
public import ATLPWire
import Dispatch
import EventModel
import Foundation
public import SecureChannel
public import SystemCalls
import Synchronization
public import ViewIdentity
import Tracker

/// Ships page snapshots to the collector (docs/agent.md "Snapshots"): `SNAPSHOT` frames on an
/// ATLP/1 connection of its own, on a thread of its own, so the UI thread only hands a snapshot
/// over (`send` never blocks). A snapshot is not an event: it is not spooled. A collector that
/// refuses the connection is tried again for up to `refusedRetryWindow` (one starting up); a
/// snapshot that still cannot be delivered (the collector unreachable, the queue full, the frame
/// too large, refused by the collector, a newer one of the same page queued) is dropped and
/// counted; the next page entered brings a newer one.
///
/// With several collectors they are tried in order, as the shipper fails over.
public final class ATLPSnapshotSender: BackgroundService {
    /// What the sender has done.
    public struct Statistics: Sendable, Hashable {
        /// Snapshots the collector acknowledged, and the id of the last one.
        public var sent = 0
        public var lastSnapshotID: Int64?
        /// Snapshots lost: not delivered, or pushed out of a full queue.
        public var failed = 0
        public var dropped = 0
        public var lastError: String?
    }

    /// Snapshots waiting at most; a newer one pushes the oldest out. A page entered again while
    /// its earlier snapshot still waits replaces it in place.
    public static let queueLimit = 16
    /// The name the sender's thread carries (pthread names hold 15 bytes).
    public static let threadName = "autotrack-snap"

    public let addresses: [SocketAddress]
    private let hello: Hello
    private let timeout: Duration
    private let security: SecureChannelFactory?
    /// The sending device's id, asked as each snapshot is sent (it changes at logout); nil: none.
    private let device: @Sendable () -> String?
    private let state = Mutex(SenderState())
    /// What the thread and its callers share.
    private struct SenderState {
        var queue: [PageSnapshot] = []
        var busy = false
        var statistics = Statistics()
        /// Callers of `flush` waiting for the queue to empty, each woken once.
        var idleWaiters: [DispatchSemaphore] = []
        var isIdle: Bool { queue.isEmpty && !busy }

        /// The waiters to wake when the queue is empty and nothing is being sent (taken out).
        mutating func waitersToWake(stopping: Bool) -> [DispatchSemaphore] {
            guard isIdle || stopping else { return [] }
            defer { idleWaiters = [] }
            return idleWaiters
        }
    }
    /// The sender's thread: woken by each snapshot queued, it sends until the queue is empty.
    private let worker: ServiceThread

    /// Starts the sender's thread; `timeout` bounds each connect and answer; `device` names the
    /// sender in each `SNAPSHOT` (the tracker's device id).
    public init(
        addresses: [SocketAddress], hello: Hello, timeout: Duration = .seconds(10), security: SecureChannelFactory? = nil,
        device: @escaping @Sendable () -> String? = { nil }
    ) {
        precondition(!addresses.isEmpty, "ATLPSnapshotSender needs at least one collector address")
        self.addresses = addresses
        self.hello = hello
        self.timeout = timeout
        self.security = security
        self.device = device
        worker = ServiceThread(threadName: ATLPSnapshotSender.threadName)
        worker.start { [self] thread in run(on: thread) }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Queues `snapshot` for sending; returns at once.
    public func send(_ snapshot: PageSnapshot) {
        let stopping = worker.isStopping
        let queued = state.withLock { s -> Bool in
            guard !stopping else { return false }
            if let i = s.queue.firstIndex(where: { $0.page == snapshot.page }) {
                s.queue[i] = snapshot
                s.statistics.dropped += 1
                return true
            }
            if s.queue.count >= ATLPSnapshotSender.queueLimit {
                s.queue.removeFirst()
                s.statistics.dropped += 1
            }
            s.queue.append(snapshot)
            return true
        }
        if queued { worker.wake() }
    }

    /// Waits until every queued snapshot was sent or given up, at most `timeout`; true when so.
    @discardableResult
    public func flush(timeout: Duration) -> Bool {
        // Woken by the thread when it runs idle (no polling); a waiter it never wakes times out.
        let waiter = state.withLock { s -> DispatchSemaphore? in
            if s.isIdle { return nil }
            let w = DispatchSemaphore(value: 0)
            s.idleWaiters.append(w)
            return w
        }
        guard let waiter else { return true }
        _ = waiter.wait(timeout: .now() + .milliseconds(Int(max(timeout.wholeMilliseconds, 0))))
        return state.withLock { s in
            s.idleWaiters.removeAll { $0 === waiter }
            return s.isIdle
        }
    }

    /// Stops the thread (what is still queued is dropped), waiting at most `timeout`.
    @discardableResult
    public func close(timeout: Duration = .seconds(2)) -> Bool {
        worker.requestStop(grace: timeout)
        return worker.waitUntilStopped(timeout: timeout)
    }

    package var serviceName: String { "snapshot sender" }

    /// Started by `init`.
    package func start() {}

    @discardableResult
    package func stop(grace: Duration) -> Bool { close(timeout: grace) }

    private func run(on thread: ServiceThread) {
        var connection: ATLPConnection?
        /// Since when every collector refuses the connection (nil: the last attempt connected).
        var refusedSince: ContinuousClock.Instant?
        defer { connection?.close() }
        while true {
            // Woken by `send` and by a stop; the hour only bounds a wait nothing ends.
            let goOn = thread.pause(for: .seconds(3600))
            // Bounded by the queue, which holds at most `queueLimit`.
            while goOn, let next = state.withLock({ s -> PageSnapshot? in
                guard !thread.isStopping, !s.queue.isEmpty else { return nil }
                s.busy = true
                return s.queue.removeFirst()
            }) {
                let outcome = deliver(next, over: &connection, refusedSince: &refusedSince)
                let idle = state.withLock { s -> [DispatchSemaphore] in
                    s.busy = false
                    switch outcome {
                    case .success(let id):
                        s.statistics.sent += 1
                        s.statistics.lastSnapshotID = id
                    case .failure(let error):
                        s.statistics.failed += 1
                        s.statistics.lastError = error.description
                    }
                    return s.waitersToWake(stopping: thread.isStopping)
                }
                for waiter in idle { waiter.signal() }
            }
            // Stopping: what is still queued is dropped, and nobody waits for it.
            let stopping = thread.isStopping
            for waiter in state.withLock({ $0.waitersToWake(stopping: stopping) }) { waiter.signal() }
            if stopping { return }
        }
    }

    /// Sends one snapshot: on the open connection, or a new one to each collector in turn. The
    /// frame is encoded once; one larger than the collector takes (`WELCOME`'s `maxSnapshot`) is
    /// not sent.
    private func deliver(
        _ snapshot: PageSnapshot, over connection: inout ATLPConnection?, refusedSince: inout ContinuousClock.Instant?
    ) -> Result<Int64, TransportError> {
        let upload = SnapshotUpload(
            page: snapshot.page, capturedAt: snapshot.capturedAt, width: snapshot.width, height: snapshot.height,
            png: snapshot.png, tree: snapshot.tree, device: device())
        let bytes = upload.frame.encoded
        func send(on c: ATLPConnection) throws(TransportError) -> Int64 {
            if let limit = c.welcome?.snapshotLimit, bytes.count > limit {
                throw TransportError(
                    .protocolViolation, "the snapshot of \(snapshot.page) takes \(bytes.count) bytes; \(c.address) takes at most \(limit)")
            }
            try c.sendBytes(bytes)
            let reply = try c.receive()
            if reply.verb == "ERR" {
                let error = ATLPError(errFrame: reply)
                throw TransportError(.remote, "\(c.address) answered ERR \(error.code.rawValue): \(error.message)", remote: error)
            }
            guard let ack = SnapshotAck(reply) else {
                throw TransportError(.protocolViolation, "expected ACK {\"snapshot\":S} from \(c.address), got \(reply.verb)")
            }
            return ack.snapshot
        }
        // A connection kept from an earlier snapshot may have been closed by the collector since.
        if let open = connection {
            do throws(TransportError) {
                return .success(try send(on: open))
            } catch {
                open.close()
                connection = nil
                if error.remote != nil || error.code == .protocolViolation { return .failure(error) }
            }
        }
        // Every collector refusing the connection (none listening yet, or restarting) is tried
        // again, as the shipper retries its batches: 50 ms, 100 ms, … up to 1 s apart, until
        // `refusedRetryWindow` after the first refusal of this outage (later snapshots of a long
        // one are tried once each), unless the sender is closing.
        let deadline = (refusedSince ?? ContinuousClock.now) + Self.refusedRetryWindow
        let backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(1))
        var rounds = 0
        while true {
            var last: TransportError?
            var allRefused = true
            for address in addresses {
                do throws(TransportError) {
                    let fresh = try ATLPConnection(to: address, hello: hello, timeout: timeout, security: security)
                    connection = fresh
                    refusedSince = nil
                    return .success(try send(on: fresh))
                } catch {
                    connection?.close()
                    connection = nil
                    last = error
                    // An answer (ERR) or a snapshot too large is final: the others would say the same.
                    if error.remote != nil || error.code == .protocolViolation { return .failure(error) }
                    if error.cause?.errno != ECONNREFUSED { allRefused = false }
                }
            }
            if allRefused, refusedSince == nil { refusedSince = ContinuousClock.now }
            rounds += 1
            let wait = backoff.delay(afterFailures: rounds)
            guard allRefused, ContinuousClock.now + wait < deadline, !worker.isStopping else { return .failure(last!) }
            Posix.sleep(wait)
        }
    }

    /// How long a snapshot waits for a collector that refuses the connection (not listening yet).
    public static let refusedRetryWindow: Duration = .seconds(10)
}
