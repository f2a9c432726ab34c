import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls
import Synchronization

/// The ATLP server's I/O loop.
typealias ATLPLoop = ConnectionLoop<ATLPConnections>

/// ATLP/1 on the connection loop, in four parts: `ATLPFrameDecoder` (frames cut from each
/// connection's bytes, a memory budget for large `SNAPSHOT` frames), `ATLPResponder` (one item at
/// a time handed to a worker, `RequestProcessor`), `ATLPAdmission` (refusals, and room kept for
/// clients that say `HELLO`) and `ATLPDeadlines` (`HELLO` first within `helloTimeout`, a minimum
/// frame rate, throttled `HELLO`s after failed authentication). Lives on the loop's I/O thread.
final class ATLPConnections: ConnectionProtocol {
    typealias State = ATLPConnectionState
    typealias Item = InboundItem
    typealias Answer = Outcome
    typealias Statistics = ATLPServerStatistics

    let decoder: ATLPFrameDecoder
    let responder: ATLPResponder
    let admission: ATLPAdmission
    let deadlines: ATLPDeadlines

    init(
        configuration: ATLPServerConfiguration, processor: RequestProcessor, handler: any ATLPHandler,
        shared: LoopShared<Outcome, ATLPServerStatistics>, log: (@Sendable (String) -> Void)?
    ) {
        let context = ATLPContext(configuration: configuration, processor: processor, handler: handler, shared: shared, log: log)
        decoder = ATLPFrameDecoder(context)
        responder = ATLPResponder(context, decoder: decoder)
        admission = ATLPAdmission(context, responder: responder)
        deadlines = ATLPDeadlines(context, responder: responder)
    }

    /// The loop's limits, as this configuration sets them.
    static func settings(_ configuration: ATLPServerConfiguration) -> ConnectionLoopSettings {
        ConnectionLoopSettings(
            maxConnections: configuration.maxConnections, maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            maxPendingRequests: configuration.maxPendingRequests, maxOutputBytes: configuration.maxOutputBytes,
            idleTimeout: configuration.idleTimeout, pollInterval: min(configuration.idleTimeout / 4, .milliseconds(250)),
            stopGracePeriod: configuration.stopGracePeriod, useEpoll: configuration.useEpoll)
    }
}

/// What the four parts share: the configuration, the request processor and handler, the
/// counters, the connections still without `HELLO`, the authentication throttle, and the large
/// frames' memory budget.
final class ATLPContext {
    let configuration: ATLPServerConfiguration
    let processor: RequestProcessor
    let handler: any ATLPHandler
    let shared: LoopShared<Outcome, ATLPServerStatistics>
    let log: (@Sendable (String) -> Void)?

    var unauthorized: UnauthorizedThrottle
    var lastForget: ContinuousClock.Instant?
    /// Open connections without an accepted `HELLO` (refusals not counted).
    var beforeHello = 0
    /// Their ids in accept order, oldest first from `beforeHelloHead`; entries of connections
    /// that have since closed or said `HELLO` are skipped when met (and compacted away).
    var beforeHelloOrder: [UInt64] = []
    var beforeHelloHead = 0
    /// `statistics.peakUnsentBytes`, kept here so the lock is taken only for a new peak.
    var peakUnsent = 0
    /// Bytes of large `SNAPSHOT` frames admitted on all connections (at most
    /// `snapshotMemoryBudget`, or one frame), and the connections whose large frame waits for room.
    var largeFrameBytes = 0
    var waitingForMemory: Set<UInt64> = []

    init(
        configuration: ATLPServerConfiguration, processor: RequestProcessor, handler: any ATLPHandler,
        shared: LoopShared<Outcome, ATLPServerStatistics>, log: (@Sendable (String) -> Void)?
    ) {
        self.configuration = configuration
        self.processor = processor
        self.handler = handler
        self.shared = shared
        self.log = log
        unauthorized = UnauthorizedThrottle(
            baseDelay: configuration.unauthorizedDelay, maxDelay: configuration.maxUnauthorizedDelay)
    }

    func count(_ change: (inout ATLPServerStatistics) -> Void) {
        shared.statistics.withLock { change(&$0) }
    }

    /// Adds an answer to the connection's output, and notes a new peak of unsent bytes.
    func queue(_ bytes: [UInt8], on c: ServerConnection, _ loop: ATLPLoop) {
        loop.queue(bytes, on: c)
        guard c.unsentCount > peakUnsent else { return }
        peakUnsent = c.unsentCount
        count { $0.peakUnsentBytes = c.unsentCount }
    }

    /// Drops skipped entries from `beforeHelloOrder`, so it stays proportional to `beforeHello`.
    func compactBeforeHello(_ loop: ATLPLoop) {
        if beforeHelloHead > 1024 && beforeHelloHead * 2 > beforeHelloOrder.count {
            beforeHelloOrder.removeFirst(beforeHelloHead)
            beforeHelloHead = 0
        }
        if beforeHelloOrder.count - beforeHelloHead > 2 * beforeHello + 1024 {
            beforeHelloOrder = beforeHelloOrder[beforeHelloHead...].filter { loop.connections[$0]?.state.client == nil }
            beforeHelloHead = 0
        }
    }

    /// Sends a closing `ERR` the loop decided on itself (not a worker), then finishes the connection.
    func answerAndFinish(_ c: ServerConnection, _ error: ATLPError, _ loop: ATLPLoop) {
        c.discardInbox()
        c.finish()
        self.queue(error.frame.encoded, on: c, loop)
        self.count { $0.errors[error.code, default: 0] += 1 }
        loop.flush(c)
    }
}
