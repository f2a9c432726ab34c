import ATLPWire
import ConnectionLoop
import EventModel
import SystemCalls

/// The ATLP server's I/O loop.
typealias ATLPLoop = ConnectionLoop<ATLPConnections>

/// ATLP/1 on the connection loop: frames cut from each connection's bytes, one item at a time
/// handed to a worker (`RequestProcessor`), `HELLO` first within `helloTimeout`, a minimum frame
/// rate, a memory budget for large `SNAPSHOT` frames, throttled `HELLO`s after failed
/// authentication, and room kept for clients that say `HELLO`. Lives on the loop's I/O thread.
final class ATLPConnections: ConnectionProtocol {
    typealias State = ATLPConnectionState
    typealias Item = InboundItem
    typealias Answer = Outcome
    typealias Statistics = ATLPServerStatistics

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

    /// The loop's limits, as this configuration sets them.
    static func settings(_ configuration: ATLPServerConfiguration) -> ConnectionLoopSettings {
        ConnectionLoopSettings(
            maxConnections: configuration.maxConnections, maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            maxPendingRequests: configuration.maxPendingRequests, maxOutputBytes: configuration.maxOutputBytes,
            idleTimeout: configuration.idleTimeout, pollInterval: min(configuration.idleTimeout / 4, .milliseconds(250)),
            stopGracePeriod: configuration.stopGracePeriod, useEpoll: configuration.useEpoll)
    }

    private func count(_ change: (inout ATLPServerStatistics) -> Void) {
        shared.statistics.withLock { change(&$0) }
    }

    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> ATLPConnectionState {
        ATLPConnectionState(peer: peer, maxFrame: configuration.maxFrame, maxSnapshotFrame: configuration.maxSnapshotFrame)
    }

    // MARK: accepting

    func refusal(_ cause: RefusalCause) -> [UInt8] {
        let reason: String
        switch cause {
        case .outOfDescriptors: reason = "the collector is out of file descriptors; retry later"
        case .limit(full: true, _, _):
            reason = "the collector has its maximum of \(configuration.maxConnections) connections open; retry later"
        case .limit(full: false, _, let host):
            reason =
                "the collector has its maximum of \(configuration.maxConnectionsPerAddress) connections open from \(host); "
                + "close some or retry later"
        }
        return ATLPFrame.error(.tooManyConnections, reason).encoded
    }

    func countRefusal() {
        count {
            $0.refused += 1
            $0.errors[.tooManyConnections, default: 0] += 1
        }
    }

    func opened(_ c: ServerConnection, loop: ATLPLoop) {
        beforeHello += 1
        beforeHelloOrder.append(c.id)
        let open = loop.openCount
        count {
            $0.accepted += 1
            $0.open = open
        }
        if beforeHello > configuration.connectionsBeforeHelloLimit { closeOldestBeforeHello(loop) }
    }

    /// Makes room for a new connection when too many wait for their `HELLO`: closes the one
    /// that has waited longest (not one whose `HELLO` a worker is answering), after a
    /// best-effort `ERR` on plain TCP. Slow `HELLO`s from many addresses then churn among
    /// themselves instead of filling every slot.
    private func closeOldestBeforeHello(_ loop: ATLPLoop) {
        for _ in 0..<(beforeHelloOrder.count - beforeHelloHead) {
            let id = beforeHelloOrder[beforeHelloHead]
            beforeHelloHead += 1
            guard let c = loop.connections[id], c.state.session == nil, !c.isRefusal else { continue }
            guard !c.answering else {
                beforeHelloOrder.append(id)  // about to say HELLO: look again later
                continue
            }
            if c.channel == nil {
                let reason =
                    "the collector has its maximum of \(configuration.connectionsBeforeHelloLimit) connections waiting for HELLO; "
                    + "send HELLO as soon as the connection is open"
                let frame = ATLPFrame.error(.tooManyConnections, reason).encoded
                _ = try? frame.withUnsafeBytes { try Posix.send(c.fd, $0) }
            }
            count {
                $0.closedBeforeHello += 1
                $0.errors[.tooManyConnections, default: 0] += 1
            }
            loop.close(c)
            break
        }
        compactBeforeHello(loop)
    }

    /// Drops skipped entries from `beforeHelloOrder`, so it stays proportional to `beforeHello`.
    private func compactBeforeHello(_ loop: ATLPLoop) {
        if beforeHelloHead > 1024 && beforeHelloHead * 2 > beforeHelloOrder.count {
            beforeHelloOrder.removeFirst(beforeHelloHead)
            beforeHelloHead = 0
        }
        if beforeHelloOrder.count - beforeHelloHead > 2 * beforeHello + 1024 {
            beforeHelloOrder = beforeHelloOrder[beforeHelloHead...].filter { loop.connections[$0]?.state.session == nil }
            beforeHelloHead = 0
        }
    }

    // MARK: reading

    /// Room for one whole frame beyond what is buffered.
    func hasRoom(_ c: ServerConnection) -> Bool {
        c.state.decoder.bufferedCount <= c.state.decoder.frameLimit + 16
    }

    func received(_ bytes: UnsafeRawBufferPointer, on c: ServerConnection, loop: ATLPLoop) {
        c.state.decoder.append(bytes)
    }

    /// A plain ATLP client on a TLS port (its first byte is a length digit, where TLS starts with
    /// a handshake record, 0x16), or a TLS client on a plain port: says so in the log and to the
    /// client, in plain text (all it can read), then closes. True when it did.
    func refusesFirstByte(_ firstByte: UInt8, on c: ServerConnection, loop: ATLPLoop) -> Bool {
        let error: ATLPError
        if c.channel != nil, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(firstByte) {
            c.channel = nil
            error = ATLPError(
                .tlsRequired,
                "this collector port expects TLS; connect with TLS (autotrack-agent and rules publish: add --tls, "
                    + "and --tls-ca FILE when its certificate is not from a system authority)")
            log?("plain ATLP from \(LogText.escaped(c.state.peer)) on this TLS port: told it to connect with TLS (--tls), closed")
        } else if c.channel == nil, loop.security == nil, firstByte == 0x16 {
            error = ATLPError(
                .badFrame, "this collector port speaks plain ATLP, not TLS; connect without --tls, or to the collector's TLS port")
            log?("a TLS handshake from \(LogText.escaped(c.state.peer)) on this plain port: told it to connect without TLS, closed")
        } else {
            return false
        }
        answerAndFinish(c, error, loop)
        return true
    }

    /// Cuts buffered bytes into requests, up to `maxPendingRequests` queued: the rest waits in
    /// the decoder until the queue drains (also after the end of the stream).
    private func extractFrames(_ c: ServerConnection, _ loop: ATLPLoop) {
        var frames = 0
        while c.takesRequests, c.pendingCount < configuration.maxPendingRequests {
            do {
                guard let payload = try c.state.decoder.next() else {
                    if c.state.decoder.waitingLargeFrame != nil && admitLargeFrame(c, loop) { continue }
                    break
                }
                c.enqueue(.payload(payload))
                frames += 1
            } catch {
                c.enqueue(.framingError(error))
                c.finish()
                c.answersBuffered = false
            }
        }
        if frames > 0 {
            let pending = c.pendingCount
            count {
                $0.framesReceived += frames
                $0.peakPendingRequests = max($0.peakPendingRequests, pending)
            }
        }
    }

    /// Admits `c`'s waiting large `SNAPSHOT` frame once its `HELLO` is accepted and the memory
    /// budget has room (one frame always fits); refuses it when no `HELLO` is on its way.
    private func admitLargeFrame(_ c: ServerConnection, _ loop: ATLPLoop) -> Bool {
        guard let length = c.state.decoder.waitingLargeFrame else { return false }
        guard c.state.session != nil else {
            if !c.answering && c.pendingCount == 0 {
                c.enqueue(
                    .framingError(
                        ATLPError(
                            .frameTooLarge,
                            "a SNAPSHOT of \(length) bytes before a HELLO was accepted; frames above "
                                + "\(configuration.maxFrame) bytes are taken only on a session")))
                c.finish()
                c.answersBuffered = false
            }
            return false
        }
        let copies = ATLPServerConfiguration.largeFrameCopies
        guard largeFrameBytes == 0 || (largeFrameBytes + length) * copies <= configuration.snapshotMemoryBudget else {
            if waitingForMemory.insert(c.id).inserted { count { $0.largeFrameWaits += 1 } }
            return false
        }
        waitingForMemory.remove(c.id)
        largeFrameBytes += length
        let held = largeFrameBytes
        count {
            $0.largeFramesAdmitted += 1
            $0.peakLargeFrameBytes = max($0.peakLargeFrameBytes, held)
        }
        c.state.largeFrameBytes += length
        c.state.decoder.admitLargeFrame()
        loop.touch(c)
        return true
    }

    /// Gives back `bytes` of `c`'s large frames, and lets the connections waiting for room try again.
    private func releaseLargeFrame(_ c: ServerConnection, _ bytes: Int, _ loop: ATLPLoop) {
        guard bytes > 0 else { return }
        c.state.largeFrameBytes -= bytes
        largeFrameBytes -= bytes
        // The last large frame answered: the heap it grew goes back to the system, so the
        // process's size follows the budget, not the largest burst of pictures it ever took.
        if largeFrameBytes == 0 { Posix.releaseFreeHeap() }
        for id in waitingForMemory {
            if let waiting = loop.connections[id], !waiting.answering { advance(waiting, loop: loop) } else { waitingForMemory.remove(id) }
        }
    }

    // MARK: answering

    /// Hands the connection's next request to a worker: one at a time, in order, and none while
    /// its unsent output is over `maxOutputBytes` (a client that does not read its answers
    /// holds at most that much of them; the flush that drains it dispatches again).
    func advance(_ c: ServerConnection, loop: ATLPLoop) {
        guard !c.answering, c.unsentCount < configuration.maxOutputBytes else { return }
        extractFrames(c, loop)
        guard c.pendingCount > 0 else { return }
        if c.state.session == nil && !unauthorized.admit(c.peer.host, now: loop.clock.now) {
            // Its address failed authentication recently: this HELLO waits (the sweep retries).
            if !c.state.throttled {
                c.state.throttled = true
                count { $0.throttledHellos += 1 }
            }
            return
        }
        guard let item = c.popItem() else { return }
        if case .payload(let p) = item, p.count > configuration.maxFrame { c.state.answeringLargeFrame = p.count }
        let processor = self.processor
        let session = c.state.session
        let id = c.id
        let peer = c.state.peer
        loop.answer(c) { processor.process(item, session: session, connectionID: id, peer: peer) }
    }

    /// While finishing: complete requests still buffered are answered before our side shuts down.
    func answersBufferedRequest(_ c: ServerConnection, loop: ATLPLoop) -> Bool {
        extractFrames(c, loop)
        guard c.pendingCount > 0 else { return false }
        advance(c, loop: loop)
        return true
    }

    func answered(_ outcome: Outcome, on c: ServerConnection, loop: ATLPLoop) {
        releaseLargeFrame(c, c.state.answeringLargeFrame, loop)
        c.state.answeringLargeFrame = 0
        let host = c.peer.host
        if outcome.failedAuthentication { unauthorized.failed(host, now: loop.clock.now) }
        if c.state.session == nil && outcome.session != nil {
            if outcome.authenticated { unauthorized.succeeded(host) }
            beforeHello -= 1
            compactBeforeHello(loop)
        }
        c.state.session = outcome.session
        queue(outcome.bytes, on: c, loop)
        c.lastActivity = loop.clock.now
        if let code = outcome.error { count { $0.errors[code, default: 0] += 1 } }
        if outcome.close {
            c.finish()
            c.discardInbox()
        }
        loop.flush(c)
        if loop.connections[c.id] != nil { loop.finishIfDone(c) }
    }

    /// Adds an answer to the connection's output, and notes a new peak of unsent bytes.
    private func queue(_ bytes: [UInt8], on c: ServerConnection, _ loop: ATLPLoop) {
        loop.queue(bytes, on: c)
        guard c.unsentCount > peakUnsent else { return }
        peakUnsent = c.unsentCount
        count { $0.peakUnsentBytes = c.unsentCount }
    }

    func closed(_ c: ServerConnection, loop: ATLPLoop) {
        waitingForMemory.remove(c.id)
        releaseLargeFrame(c, c.state.largeFrameBytes, loop)
        if c.state.session == nil { beforeHello -= 1 }
        let open = loop.openCount
        count { $0.open = open }
        let session = c.state.session
        let peer = c.state.peer
        let handler = self.handler
        loop.workers.submit { handler.closed(session: session, peer: peer) }
    }

    // MARK: limits and stopping

    func sweepBegins(now: ContinuousClock.Instant, loop: ATLPLoop) {
        if lastForget.map({ now - $0 >= .seconds(1) }) ?? true {
            unauthorized.forgetOld(now: now)
            lastForget = now
        }
    }

    func closingIdle(_ c: ServerConnection) {
        count { $0.idleClosed += 1 }
    }

    func sweep(_ c: ServerConnection, now: ContinuousClock.Instant, loop: ATLPLoop) {
        if c.state.throttled && !c.answering { advance(c, loop: loop) }  // a held-back HELLO whose wait may be over
        guard loop.connections[c.id] != nil, c.isReading else { return }
        if c.state.session == nil && c.waitsOnClient && now - c.acceptedAt >= configuration.helloTimeout {
            count { $0.helloTimedOut += 1 }
            answerAndFinish(
                c, ATLPError(.helloRequired, "no HELLO within \(configuration.helloTimeout); a connection starts with HELLO"), loop)
            return
        }
        // The minimum-rate clock of a frame in progress runs only while we wait on the client:
        // it gets the grace period plus one second per `minimumFrameRate` bytes received.
        if c.state.decoder.bufferedCount == 0 {
            c.state.partialSince = nil
        } else if let since = c.state.partialSince, c.waitsOnClient, c.state.decoder.waitingLargeFrame == nil {
            let allowed =
                configuration.frameGracePeriod
                + .milliseconds(Int64(c.state.decoder.bufferedCount) * 1000 / Int64(configuration.minimumFrameRate))
            if now - since > allowed {
                count { $0.slowFramesClosed += 1 }
                loop.close(c)
            }
        } else {
            c.state.partialSince = now
        }
    }

    /// Sends a closing `ERR` the loop decided on itself (not a worker), then finishes the connection.
    private func answerAndFinish(_ c: ServerConnection, _ error: ATLPError, _ loop: ATLPLoop) {
        c.discardInbox()
        c.finish()
        queue(error.frame.encoded, on: c, loop)
        count { $0.errors[error.code, default: 0] += 1 }
        loop.flush(c)
    }
}
