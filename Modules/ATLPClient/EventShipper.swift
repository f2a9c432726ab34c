import ATLPWire
import Dispatch
public import EventModel
import Foundation
import Synchronization
public import SystemCalls

/// The client that loses nothing: events go to a disk spool on `enqueue`, are cut into
/// batches, sent over one connection with a window of batches in flight, and deleted from
/// the spool only when an `ACK` covers them. After a reconnect (or a restart of the
/// process on the same spool) unacknowledged batches are resent with the same batch ids;
/// the collector drops repeated event ids, so storage is exactly once.
///
/// One thread of its own does all the network work; `enqueue` only appends to a file.
/// The thread runs until `close(timeout:)`: call it (it also releases the spool folder).
public final class EventShipper: BackgroundService {
    public let configuration: EventShipperConfiguration
    private let state: Mutex<ShipperState>
    /// The delivery thread: woken by a batch sealed, a flush or a stop.
    private let worker = ServiceThread(threadName: "atlp-shipper")
    private let onProgress: (@Sendable (ShipperStatistics) -> Void)?
    private let onUnreachable: (@Sendable (TransportError) -> Void)?

    struct ShipperState {
        var spool: Spool
        var statistics = ShipperStatistics()
        /// `close` was called: `enqueue` refuses from now on.
        var closed = false
        /// `discardUnsent()` was called; the delivery thread, which knows what is in flight, drops the rest.
        var discardRequested = false
        /// `flush` callers waiting for the delivery thread's next step (an ACK, a halt); each is
        /// signalled once and removed.
        var flushWaiters: [DispatchSemaphore] = []
        /// When the last `ACK` arrived: a flush that gives up after a stall measures from it.
        var lastAcknowledgement: ContinuousClock.Instant?
    }

    /// Opens (and recovers) the spool and starts the delivery thread. `onProgress` is
    /// called on that thread after every `ACK`; `onUnreachable` once, the first time every
    /// collector has failed in turn (with the last failure), so a program can say once that its
    /// events wait in the spool instead of saying nothing, or saying it per event.
    public init(
        configuration: EventShipperConfiguration, onProgress: (@Sendable (ShipperStatistics) -> Void)? = nil,
        onUnreachable: (@Sendable (TransportError) -> Void)? = nil
    ) throws(SpoolError) {
        self.configuration = configuration
        self.onProgress = onProgress
        self.onUnreachable = onUnreachable
        let spool = try Spool(directory: configuration.spoolDirectory, maxBytes: configuration.maxSpoolBytes)
        state = Mutex(ShipperState(spool: spool))
        worker.start { [self] thread in deliver(on: thread) }
    }

    /// Takes one event. When this returns, the event is in the spool file: it survives a
    /// crash of this process and will be delivered by this shipper or the next one on the
    /// same folder. Throws (and counts the refusal) when the spool is full or closed.
    public func enqueue(_ event: TrackEvent) throws(SpoolError) {
        try spool(json: event.json.jsonBytes)  // our own writer: one line of valid JSON
    }

    /// Takes one event already in its wire JSON form: one line of UTF-8 holding a JSON object
    /// (anything else is refused with `invalidEvent`, as the collector would refuse its batch).
    public func enqueue(json: [UInt8]) throws(SpoolError) {
        if let problem = SpooledEvent.problem(json) {
            state.withLock { $0.statistics.refused += 1 }
            throw SpoolError(.invalidEvent, "the event is \(problem); it was refused, not spooled")
        }
        try spool(json: json)
    }

    private func spool(json: [UInt8]) throws(SpoolError) {
        let limit = configuration.maxFrame - 128  // room for `EVENTS {"batch":...,"sentAt":...,"events":[...]}`
        let cut = try state.withLock { (s) throws(SpoolError) -> Bool in
            do throws(SpoolError) {
                guard !s.closed else { throw SpoolError(.closed, "the shipper to \(configuration.collectorsDescription) is closed") }
                guard json.count <= limit else {
                    throw SpoolError(
                        .eventTooLarge, "an event of \(json.count) bytes does not fit in a frame of \(configuration.maxFrame) bytes")
                }
                try s.spool.append(json)
                s.statistics.enqueued += 1
                if s.spool.openEvents >= configuration.batchMaxEvents || s.spool.openBytes >= configuration.batchMaxBytes {
                    _ = try s.spool.seal()
                    return true
                }
                return false
            } catch {
                s.statistics.refused += 1
                throw error
            }
        }
        if cut { worker.wake() }
    }

    /// Cuts the open batch and waits until everything enqueued so far is acknowledged;
    /// false on timeout or when delivery halted (the events stay in the spool).
    public func flush(timeout: Duration) -> Bool {
        flush(until: ContinuousClock.now + timeout)
    }

    /// Cuts the open batch and waits until everything enqueued so far is acknowledged, at most
    /// until `deadline`. False when the time ran out or delivery halted (the events stay in the
    /// spool). The wait sleeps until the delivery thread's next step, no polling.
    public func flush(until deadline: ContinuousClock.Instant) -> Bool {
        waitForAcknowledgements(deadline: deadline, stall: nil, tick: nil)
    }

    /// Cuts the open batch and waits until everything enqueued so far is acknowledged, for as
    /// long as acknowledgements keep coming: false once `stall` passed without an `ACK` (counted
    /// from the call or the last `ACK`, whichever is later) or when delivery halted. `tick`, when
    /// given, is called with the statistics at least every `interval` while it waits (a progress
    /// line's redraw); the wait itself sleeps until the delivery thread's next step.
    public func flush(
        stall: Duration, tick: (interval: Duration, call: (ShipperStatistics) -> Void)? = nil
    ) -> Bool {
        waitForAcknowledgements(deadline: nil, stall: stall, tick: tick)
    }

    private func waitForAcknowledgements(
        deadline: ContinuousClock.Instant?, stall: Duration?, tick: (interval: Duration, call: (ShipperStatistics) -> Void)?
    ) -> Bool {
        let start = ContinuousClock.now
        _ = try? state.withLock { (s) throws(SpoolError) in
            s.statistics.flushes += 1
            _ = try s.spool.seal()
        }
        worker.wake()
        while true {
            let waiter = DispatchSemaphore(value: 0)
            let (done, giveUpAt) = state.withLock { s -> (Bool?, ContinuousClock.Instant?) in
                var giveUpAt = deadline
                if let stall {
                    let stalled = max(start, s.lastAcknowledgement ?? start) + stall
                    giveUpAt = min(giveUpAt ?? stalled, stalled)
                }
                if s.spool.pendingEvents == 0 { return (true, giveUpAt) }
                if s.statistics.halted || giveUpAt.map({ ContinuousClock.now >= $0 }) == true { return (false, giveUpAt) }
                s.flushWaiters.append(waiter)
                return (nil, giveUpAt)
            }
            if let done { return done }
            var wakeAt = giveUpAt ?? ContinuousClock.now + .seconds(3600)
            if let tick { wakeAt = min(wakeAt, ContinuousClock.now + tick.interval) }
            _ = waiter.wait(timeout: .now() + .nanoseconds((wakeAt - ContinuousClock.now).waitNanoseconds))
            tick?.call(statistics)
        }
    }

    /// Wakes every `flush` waiting: the delivery thread calls it after each step.
    private func wakeFlushes() {
        let waiting = state.withLock { s -> [DispatchSemaphore] in
            defer { s.flushWaiters.removeAll() }
            return s.flushWaiters
        }
        for waiter in waiting { waiter.signal() }
    }

    /// Flushes within `timeout`, then stops the delivery thread (closing its connection).
    /// Whatever was not acknowledged stays in the spool for the next shipper. Returns
    /// whether everything was acknowledged. Later `enqueue` calls throw `.closed`.
    @discardableResult
    public func close(timeout: Duration = .seconds(5)) -> Bool {
        let delivered = timeout > .zero ? flush(timeout: timeout) : false
        let first = state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        if first {
            // What is in flight stays in the spool: the thread only closes its connection. Its
            // reads are bounded by the ACK timeout, so the hour is never reached.
            worker.requestStop(grace: .zero)
            _ = worker.waitUntilStopped(timeout: .seconds(3600))
            state.withLock { $0.spool.release() }  // the next shipper may take the folder
        }
        return delivered || statistics.pendingEvents == 0
    }

    package var serviceName: String { "event shipper" }

    /// Started by `init`.
    package func start() {}

    /// `close(timeout: grace)`: what is not acknowledged by then stays in the spool.
    @discardableResult
    package func stop(grace: Duration) -> Bool { close(timeout: grace) }

    /// Drops every event not yet sent (the user withdrew consent): the open segment and the sealed
    /// batches not in flight. The delivery thread does it, since only it knows which batches are
    /// in flight (those were sent already); without a running delivery thread it is done here.
    public func discardUnsent() {
        let threadGone = state.withLock { s -> Bool in
            s.discardRequested = true
            return s.statistics.halted || s.closed
        }
        if threadGone {
            discardIfRequested(inFlight: 0)
            wakeFlushes()
        }
        worker.wake()
    }

    private func discardIfRequested(inFlight: Int) {
        state.withLock { s in
            guard s.discardRequested else { return }
            s.discardRequested = false
            do {
                s.statistics.discarded += try s.spool.discard(keepingFirst: inFlight)
            } catch {
                s.statistics.lastError = "\(error)"
            }
        }
    }

    /// A snapshot of the counters.
    public var statistics: ShipperStatistics {
        state.withLock { s in
            var stats = s.statistics
            stats.pendingEvents = s.spool.pendingEvents
            return stats
        }
    }

    /// The files of the spool folder named as batches that cannot be sent (a batch number out of
    /// range): a sentence each, naming the file and why. They are kept, unsent; a command says so
    /// and fails, so nothing is dropped unseen.
    public var unusableSpoolFiles: [String] { state.withLock { $0.spool.unusableFiles } }

    /// The events waiting in the spool folder `directory`, read without opening it for delivery
    /// (`autotrack-agent run` says at exit how many the tracked program left there).
    public static func waitingEvents(inSpool directory: String) throws(SpoolError) -> Int {
        try Spool.waitingEvents(in: directory)
    }

    // MARK: the delivery thread

    private func record(_ error: some Error, halt: Bool = false) {
        state.withLock { s in
            s.statistics.lastError = "\(error)"
            if halt { s.statistics.halted = true }
        }
    }

    private func deliver(on thread: ServiceThread) {
        var link: ShipperLink?
        /// Failed attempts in a row, over every collector.
        var failures = 0
        /// The collector tried next (an index into `addresses`).
        var current = 0
        /// `onUnreachable` was called (it is, once).
        var toldUnreachable = false
        /// After a failure: try the next collector, and back off once all of them failed in turn.
        func failOver(_ error: TransportError?) {
            failures += 1
            if let error, failures >= configuration.addresses.count, !toldUnreachable {
                toldUnreachable = true
                onUnreachable?(error)
            }
            current = (current + 1) % configuration.addresses.count
            if failures % configuration.addresses.count == 0 { backOff(failures / configuration.addresses.count, thread) }
        }
        while !thread.isStopping {
            discardIfRequested(inFlight: link?.inFlight.count ?? 0)
            wakeFlushes()
            sealIfDue()
            if link == nil {
                guard state.withLock({ !$0.spool.sealed.isEmpty }) else {
                    _ = thread.pause(for: waitTime())
                    continue
                }
                let address = configuration.addresses[current]
                do {
                    link = try ShipperLink(configuration, to: address)
                    failures = 0
                    state.withLock {
                        $0.statistics.connections += 1
                        $0.statistics.collector = address.description
                    }
                } catch {
                    // A HELLO the collector refuses as such will be refused again: stop and say why.
                    let fatal =
                        error.remote.map { [.unauthorized, .forbidden, .unknownVerb, .badRequest, .badJSON, .tlsRequired].contains($0.code) }
                        ?? false
                    record(error, halt: fatal)
                    if fatal { break }
                    failOver(error)
                    continue
                }
            }
            guard let current = link else { continue }
            switch step(current, thread) {
            case .ok:
                break
            case .drop(let error, let backoff):
                link = nil
                if let error { record(error) }
                if backoff { failOver(error) }
            case .halt(let error):
                record(error, halt: true)
                link = nil
            }
            if state.withLock({ $0.statistics.halted }) { break }
        }
        link?.connection.close()
        wakeFlushes()
    }

    private enum StepResult {
        case ok
        case drop(TransportError?, backoff: Bool)
        case halt(TransportError)
    }

    /// Fills the window, then waits for one answer (or for work when nothing is in flight).
    private func step(_ link: ShipperLink, _ thread: ServiceThread) -> StepResult {
        discardIfRequested(inFlight: link.inFlight.count)
        while link.inFlight.count < configuration.window {
            let next = state.withLock { s -> SpooledBatch? in link.inFlight.nextToSend(sealed: s.spool.sealed) }
            guard let batch = next else { break }
            let frame: [UInt8]
            do {
                guard let built = try buildFrame(batch, maxFrame: link.maxFrame) else { continue }  // split or quarantined
                frame = built
            } catch {
                record(error)
                return .drop(nil, backoff: true)
            }
            do {
                try link.connection.sendBytes(frame)
            } catch {
                return .drop(error, backoff: true)
            }
            link.inFlight.sent(batch)
        }
        if link.inFlight.isEmpty {
            _ = thread.pause(for: waitTime())
            return .ok
        }
        let reply: ATLPFrame
        do {
            reply = try link.connection.receive()
        } catch {
            if error.code == .timedOut {
                if ContinuousClock.now - link.lastProgress < configuration.ackTimeout { return .ok }
                return .drop(TransportError(.timedOut, "no ACK from \(link.address) within \(configuration.ackTimeout)"), backoff: true)
            }
            return .drop(error, backoff: true)
        }
        link.lastProgress = .now
        return handle(reply, on: link)
    }

    private func handle(_ reply: ATLPFrame, on link: ShipperLink) -> StepResult {
        guard let head = link.inFlight.head else {
            return .drop(
                TransportError(.protocolViolation, "\(link.address) answered a request never sent: \(reply.description.prefix(120))"),
                backoff: true)
        }
        if reply.verb == "ERR" { return handleError(ATLPError(errFrame: reply), of: head, on: link) }
        return handleAck(reply, of: head, on: link)
    }

    /// The collector's `ERR` for the oldest batch in flight: stop for good (credentials, verb),
    /// split or quarantine a batch too large, isolate the events a collector refuses, else retry.
    private func handleError(_ error: ATLPError, of head: SpooledBatch, on link: ShipperLink) -> StepResult {
        let transportError = TransportError.remote(error, from: link.address)
        switch error.code {
        case .unauthorized, .forbidden, .unknownVerb:
            return .halt(transportError)
        case .frameTooLarge:
            do {
                try state.withLock { (s) throws(SpoolError) in
                    if head.events > 1 {
                        _ = try s.spool.split(head)
                    } else {
                        try s.spool.quarantine(head, reason: error.description)
                        s.statistics.undeliverable += head.events
                    }
                }
            } catch {
                record(error)
            }
            return .drop(transportError, backoff: false)
        case .badFrame, .badJSON, .badRequest:
            // The collector refuses the batch whole: halve it until the events it refuses are
            // alone, and set only those aside; everything else is delivered.
            let isolated: Bool
            do {
                isolated = try state.withLock { (s) throws(SpoolError) -> Bool in
                    guard head.events == 1 else {
                        _ = try s.spool.split(head)
                        return false
                    }
                    let file = try s.spool.setAside([0], of: head, reason: "the collector refused it: \(error)")
                    s.statistics.noteSetAside(1, of: head, in: file, why: "the collector refused it: \(error)")
                    return true
                }
            } catch {
                record(error)
                return .drop(transportError, backoff: true)
            }
            // Resend the halves on a new connection (the answers in flight are for the old batch).
            guard isolated, !error.code.closesConnection else { return .drop(transportError, backoff: false) }
            link.inFlight.headAnswered()
            record(transportError)
            return .ok
        default:
            return .drop(transportError, backoff: true)
        }
    }

    /// The collector's `ACK` of the oldest batch in flight: the batch leaves the spool and its
    /// counts join the statistics; an answer for another batch breaks the protocol.
    private func handleAck(_ reply: ATLPFrame, of head: SpooledBatch, on link: ShipperLink) -> StepResult {
        guard let ack = BatchAck(reply), ack.batch == .string(Self.batchID(head)) else {
            return .drop(
                TransportError(
                    .protocolViolation,
                    "expected ACK of batch \(Self.batchID(head)) from \(link.address), got \(reply.description.prefix(120))"),
                backoff: true)
        }
        let snapshot: ShipperStatistics
        do {
            snapshot = try state.withLock { (s) throws(SpoolError) -> ShipperStatistics in
                try s.spool.remove(head)
                s.lastAcknowledgement = .now
                s.statistics.acknowledgedBatches += 1
                s.statistics.acknowledgedEvents += head.events
                s.statistics.stored += ack.stored
                s.statistics.duplicates += ack.duplicates
                s.statistics.rejected += ack.rejected
                var stats = s.statistics
                stats.pendingEvents = s.spool.pendingEvents
                return stats
            }
        } catch {
            record(error)
            return .drop(nil, backoff: true)
        }
        link.inFlight.headAnswered()
        onProgress?(snapshot)
        return .ok
    }

    /// The `EVENTS` frame of a spooled batch, built from the stored JSON lines without
    /// re-encoding; nil when the batch had to be split or set aside to fit `maxFrame`.
    private func buildFrame(_ batch: SpooledBatch, maxFrame: Int) throws(SpoolError) -> [UInt8]? {
        let file = try Spool.readForSending(batch, in: configuration.spoolDirectory)
        let lines = file.split(separator: 0x0A, omittingEmptySubsequences: true)
        // What was spooled whole may have been damaged on disk: only sendable events go out.
        var problems: [(index: Int, problem: String)] = []
        for (i, line) in lines.enumerated() {
            if let problem = SpooledEvent.quickProblem(line) { problems.append((i, problem)) }
        }
        guard problems.isEmpty else {
            let why = problems.prefix(3).map { "event \($0.index + 1): \($0.problem)" }.joined(separator: "; ")
            try state.withLock { (s) throws(SpoolError) in
                let aside = try s.spool.setAside(problems.map(\.index), of: batch, reason: why)
                s.statistics.noteSetAside(problems.count, of: batch, in: aside, why: why)
            }
            return nil
        }
        // `sentAt` is this side's clock at the send, so the collector can correct a skewed `ts`.
        let payload = ATLPRequest.eventsPayload(batch: Self.batchID(batch), sentAt: Posix.wallClockMillis(), encodedEvents: lines)
        guard payload.count <= maxFrame else {
            try state.withLock { (s) throws(SpoolError) in
                if batch.events > 1 {
                    _ = try s.spool.split(batch)
                } else {
                    try s.spool.quarantine(
                        batch, reason: "frame-too-large: one event needs \(payload.count) bytes, the collector takes \(maxFrame)")
                    s.statistics.undeliverable += 1
                }
            }
            return nil
        }
        return ATLPFrame.frame(payload: payload)
    }

    static func batchID(_ batch: SpooledBatch) -> String { String(batch.sequence) }

    private func sealIfDue() {
        _ = try? state.withLock { (s) throws(SpoolError) in
            if let since = s.spool.openSince, ContinuousClock.now - since >= configuration.batchInterval {
                _ = try s.spool.seal()
            }
        }
    }

    private func waitTime() -> Duration {
        let since = state.withLock { $0.spool.openSince }
        var wait = configuration.batchInterval
        if let since { wait = max(.milliseconds(1), configuration.batchInterval - (ContinuousClock.now - since)) }
        return min(wait, .seconds(1))
    }

    /// Waits out the backoff after `failures` rounds of failures; new events do not shorten it, a stop does.
    private func backOff(_ failures: Int, _ thread: ServiceThread) {
        let until = ContinuousClock.now + configuration.backoff.delay(afterFailures: failures)
        while ContinuousClock.now < until, thread.pause(for: until - ContinuousClock.now) {}
    }
}
