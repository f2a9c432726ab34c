import ATLPWire
import EventModel
import SecureChannel
import SystemCalls

/// The I/O thread's loop (epoll, or poll where epoll is missing): accept, read, frame, hand items to workers, write replies,
/// enforce limits, and stop gracefully. Lives and dies on that one thread.
final class ServerLoop {
    let listener: Int32
    let wakeRead: Int32
    let wakeWrite: Int32
    let configuration: ATLPServerConfiguration
    let processor: RequestProcessor
    let handler: any ATLPHandler
    let workers: WorkerPool
    let shared: ServerShared
    let security: SecureChannelFactory?
    let log: (@Sendable (String) -> Void)?
    let clock = ContinuousClock()

    var connections: [UInt64: ServerConnection] = [:]
    /// How many of `connections` are refusals being closed.
    var refusals = 0
    static let maxRefusals = 64
    var nextID: UInt64 = 1
    var listening = true
    var acceptPausedUntil: ContinuousClock.Instant?
    var stopDeadline: ContinuousClock.Instant?
    var readBuffer = [UInt8](repeating: 0, count: 65536)
    static let lingerTime = Duration.seconds(2)
    /// Open connections (not refusals) by peer IP address.
    var openPerAddress: [String: Int] = [:]
    var unauthorized: UnauthorizedThrottle
    /// A spare fd, given up to accept (and refuse) a client when the process is out of fds.
    var reserveFD: Int32
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
        listener: Int32, wakeRead: Int32, wakeWrite: Int32, configuration: ATLPServerConfiguration,
        processor: RequestProcessor, handler: any ATLPHandler, workers: WorkerPool, shared: ServerShared,
        security: SecureChannelFactory?, log: (@Sendable (String) -> Void)?
    ) {
        self.security = security
        self.log = log
        self.listener = listener
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.configuration = configuration
        self.processor = processor
        self.handler = handler
        self.workers = workers
        self.shared = shared
        unauthorized = UnauthorizedThrottle(
            baseDelay: configuration.unauthorizedDelay, maxDelay: configuration.maxUnauthorizedDelay)
        reserveFD = (try? Posix.open("/dev/null", O_RDONLY)) ?? -1
        if configuration.useEpoll, let p = try? EpollPoller() {
            poller = p
        } else {
            poller = PollPoller()
        }
    }

    let poller: any Poller
    static let wakeID = UInt64.max
    static let listenerID = UInt64.max - 1
    var listenerInterest: Int16 = 0
    /// Connections whose interest may have changed since the last wait.
    var touched: [ServerConnection] = []
    var lastSweep: ContinuousClock.Instant?

    func run() {
        do {
            try poller.add(wakeRead, id: Self.wakeID, events: Int16(POLLIN))
            try poller.add(listener, id: Self.listenerID, events: 0)
        } catch {
            shared.stopRequested.store(true, ordering: .releasing)  // cannot serve: stop at once
        }
        while true {
            let now = clock.now
            if stopDeadline == nil, shared.stopRequested.load(ordering: .acquiring) { beginStop(now) }
            if let deadline = stopDeadline, connections.isEmpty || now >= deadline { break }

            // Only connections that changed are looked at: a thousand quiet ones cost nothing.
            for c in touched where connections[c.id] === c {
                let want = interest(c)
                if want != c.registered {
                    do {
                        try poller.modify(c.fd, id: c.id, events: want)
                        c.registered = want
                    } catch {
                        close(c)
                    }
                }
            }
            touched.removeAll(keepingCapacity: true)
            let acceptNow = listening && (acceptPausedUntil.map { now >= $0 } ?? true)
            let wantListener: Int16 = acceptNow ? Int16(POLLIN) : 0
            if listening && wantListener != listenerInterest {
                try? poller.modify(listener, id: Self.listenerID, events: wantListener)
                listenerInterest = wantListener
            }
            let timeout = Int32(clamping: min(configuration.idleTimeout / 4, .milliseconds(250)).milliseconds)
            let ready: [(id: UInt64, events: Int16)]
            do {
                ready = try poller.wait(timeoutMilliseconds: max(1, timeout))
            } catch {
                continue  // only EINVAL/ENOMEM are possible here; try again
            }
            var acceptable = false
            for (id, events) in ready {
                if id == Self.wakeID {
                    Posix.drain(wakeRead)
                } else if id == Self.listenerID {
                    acceptable = true
                } else if let c = connections[id] {
                    let revents = Int32(events)
                    if revents & Int32(POLLOUT) != 0 {
                        flush(c)
                        // Output drained below the cap: the requests it held back go on.
                        if connections[id] != nil { dispatch(c) }
                    }
                    guard connections[id] != nil else { continue }
                    if revents & Int32(POLLIN) != 0 {
                        readFrom(c)
                    } else if revents & Int32(POLLERR | POLLHUP) != 0 {
                        // Reset or fully closed while we were not reading: nothing more can
                        // be sent or received (level-triggered, it would wake us forever).
                        close(c)
                    }
                }
            }
            if acceptable { acceptConnections() }
            applyCompletions()
            let after = clock.now
            if lastSweep.map({ after - $0 >= .milliseconds(50) }) ?? true {
                sweep(after)
                lastSweep = after
            }
        }
        for c in Array(connections.values) { close(c) }
        if listening { Posix.close(listener) }
        if reserveFD >= 0 { Posix.close(reserveFD) }
    }

    private func interest(_ c: ServerConnection) -> Int16 {
        var events: Int16 = 0
        if wantsRead(c) { events |= Int16(POLLIN) }
        if c.unsentCount > 0 && !c.isLingering { events |= Int16(POLLOUT) }
        return events
    }

    // MARK: accepting

    private func acceptConnections() {
        for _ in 0..<64 {
            let accepted: (fd: Int32, peer: SocketAddress)?
            do {
                accepted = try Posix.accept(listener)
            } catch where error.isOutOfDescriptors && reserveFD >= 0 {
                // Out of fds: give up the spare one to accept the waiting client and tell it why,
                // instead of leaving it to hang in the backlog.
                Posix.close(reserveFD)
                reserveFD = -1
                if let (fd, _) = try? Posix.accept(listener) {
                    refuse(fd, "the collector is out of file descriptors; retry later", plain: security == nil)
                }
                reserveFD = (try? Posix.open("/dev/null", O_RDONLY)) ?? -1
                continue
            } catch {
                // Out of fds with no spare, or a connection aborted while queued: pause
                // accepting briefly instead of spinning on a listener that stays readable.
                acceptPausedUntil = clock.now + .milliseconds(100)
                return
            }
            guard let (fd, peer) = accepted else { return }
            let full = connections.count - refusals >= configuration.maxConnections
            let crowded = (openPerAddress[peer.host] ?? 0) >= configuration.maxConnectionsPerAddress
            let refusal = full || crowded
            let reason =
                full
                ? "the collector has its maximum of \(configuration.maxConnections) connections open; retry later"
                : "the collector has its maximum of \(configuration.maxConnectionsPerAddress) connections open from \(peer.host); "
                    + "close some or retry later"
            if refusal && (refusals >= Self.maxRefusals || security != nil) {
                // A flood, or a secure listener (a refusal cannot wait for a handshake): no lingering.
                refuse(fd, reason, plain: security == nil)
                continue
            }
            try? Posix.setNoDelay(fd)
            let now = clock.now
            let c = ServerConnection(
                id: nextID, fd: fd, peer: peer, maxFrame: configuration.maxFrame,
                maxSnapshotFrame: configuration.maxSnapshotFrame, now: now, isRefusal: refusal)
            nextID += 1
            do {
                try poller.add(fd, id: c.id, events: interest(c))
                c.registered = interest(c)
            } catch {
                Posix.close(fd)
                continue
            }
            connections[c.id] = c
            if refusal {
                // Refused like any closing error: the ERR, then a drained half-close, so a
                // client that already sent its HELLO reads the reason instead of a reset.
                refusals += 1
                c.output = ATLPFrame.error(.tooManyConnections, reason).encoded
                shared.statistics.withLock {
                    $0.refused += 1
                    $0.errors[.tooManyConnections, default: 0] += 1
                }
                flush(c)
                continue
            }
            openPerAddress[c.host, default: 0] += 1
            beforeHello += 1
            beforeHelloOrder.append(c.id)
            if let security {
                do {
                    c.channel = try security(c.host)
                } catch {
                    close(c)
                    continue
                }
            }
            shared.statistics.withLock {
                $0.accepted += 1
                $0.open = connections.count - refusals
            }
            if beforeHello > configuration.connectionsBeforeHelloLimit { closeOldestBeforeHello() }
        }
    }

    /// Makes room for a new connection when too many wait for their `HELLO`: closes the one
    /// that has waited longest (not one whose `HELLO` a worker is answering), after a
    /// best-effort `ERR` on plain TCP. Slow `HELLO`s from many addresses then churn among
    /// themselves instead of filling every slot.
    private func closeOldestBeforeHello() {
        for _ in 0..<(beforeHelloOrder.count - beforeHelloHead) {
            let id = beforeHelloOrder[beforeHelloHead]
            beforeHelloHead += 1
            guard let c = connections[id], c.session == nil, !c.isRefusal else { continue }
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
            shared.statistics.withLock {
                $0.closedBeforeHello += 1
                $0.errors[.tooManyConnections, default: 0] += 1
            }
            close(c)
            break
        }
        compactBeforeHello()
    }

    /// Drops skipped entries from `beforeHelloOrder`, so it stays proportional to `beforeHello`.
    private func compactBeforeHello() {
        if beforeHelloHead > 1024 && beforeHelloHead * 2 > beforeHelloOrder.count {
            beforeHelloOrder.removeFirst(beforeHelloHead)
            beforeHelloHead = 0
        }
        if beforeHelloOrder.count - beforeHelloHead > 2 * beforeHello + 1024 {
            beforeHelloOrder = beforeHelloOrder[beforeHelloHead...].filter { connections[$0]?.session == nil }
            beforeHelloHead = 0
        }
    }

    /// Tells a plain-TCP client why in one frame (best effort, never blocking), then closes at once.
    private func refuse(_ fd: Int32, _ reason: String, plain: Bool) {
        if plain {
            let frame = ATLPFrame.error(.tooManyConnections, reason).encoded
            _ = try? frame.withUnsafeBytes { try Posix.send(fd, $0) }
        }
        Posix.shutdownWrite(fd)
        Posix.close(fd)
        shared.statistics.withLock {
            $0.refused += 1
            $0.errors[.tooManyConnections, default: 0] += 1
        }
    }

    // MARK: reading

    private func wantsRead(_ c: ServerConnection) -> Bool {
        switch c.phase {
        case .lingering: return true
        case .finishing: return false
        case .reading:
            // Bounded read-ahead: queued requests, unsent replies, and bytes not yet cut into
            // frames (room for one whole frame) each stop reading until they drain.
            return c.pendingCount < configuration.maxPendingRequests && c.unsentCount < configuration.maxOutputBytes
                && c.decoder.bufferedCount <= c.decoder.frameLimit + 16
        }
    }

    private func readFrom(_ c: ServerConnection) {
        defer { touched.append(c) }
        // A fair share per wakeup: one busy client cannot monopolise the loop.
        var budget = 4 * readBuffer.count
        while budget > 0 && (wantsRead(c)) {
            let result: IOResult
            do {
                result = try readBuffer.withUnsafeMutableBytes { try Posix.read(c.fd, into: $0) }
            } catch {
                close(c)  // reset by the peer: nothing can be answered any more
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                if c.isLingering {
                    close(c)
                    return
                }
                // End of stream: stop reading, but answer every complete request buffered.
                c.finish()
                dispatch(c)
                finishIfDone(c)
                return
            case .processed(let n):
                budget -= n
                c.lastActivity = clock.now
                if c.isLingering { continue }  // discarding until EOF
                if !c.receivedAny {
                    c.receivedAny = true
                    if refuseWrongProtocol(c, firstByte: readBuffer[0]) { return }
                }
                guard let channel = c.channel else {
                    readBuffer.withUnsafeBytes { c.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                    dispatch(c)
                    continue
                }
                do {
                    try channel.receive(readBuffer[0..<n])
                    c.decoder.append(try channel.readPlaintext())
                    c.output.append(contentsOf: channel.takeCiphertext())  // handshake answers
                } catch {
                    close(c)  // a failed handshake or a damaged record: nothing can be answered
                    return
                }
                dispatch(c)
                if c.unsentCount > 0 {
                    flush(c)
                    guard connections[c.id] != nil else { return }
                }
                if channel.isClosed {
                    c.finish()
                    dispatch(c)
                    finishIfDone(c)
                    return
                }
            }
        }
    }

    /// A plain ATLP client on a TLS port (its first byte is a length digit, where TLS starts with
    /// a handshake record, 0x16), or a TLS client on a plain port: says so in the log and to the
    /// client, in plain text (all it can read), then closes. True when it did.
    private func refuseWrongProtocol(_ c: ServerConnection, firstByte: UInt8) -> Bool {
        let error: ATLPError
        if c.channel != nil, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(firstByte) {
            c.channel = nil
            error = ATLPError(
                .tlsRequired,
                "this collector port expects TLS; connect with TLS (autotrack-agent and rules publish: add --tls, "
                    + "and --tls-ca FILE when its certificate is not from a system authority)")
            log?("plain ATLP from \(LogText.escaped(c.peer)) on this TLS port: told it to connect with TLS (--tls), closed")
        } else if c.channel == nil, security == nil, firstByte == 0x16 {
            error = ATLPError(
                .badFrame, "this collector port speaks plain ATLP, not TLS; connect without --tls, or to the collector's TLS port")
            log?("a TLS handshake from \(LogText.escaped(c.peer)) on this plain port: told it to connect without TLS, closed")
        } else {
            return false
        }
        answerAndFinish(c, error)
        return true
    }

    /// Cuts buffered bytes into requests, up to `maxPendingRequests` queued: the rest waits in
    /// the decoder until the queue drains (also after the end of the stream).
    private func extractFrames(_ c: ServerConnection) {
        var frames = 0
        while c.takesRequests, c.pendingCount < configuration.maxPendingRequests {
            do {
                guard let payload = try c.decoder.next() else {
                    if c.decoder.waitingLargeFrame != nil && admitLargeFrame(c) { continue }
                    break
                }
                c.inbox.append(.payload(payload))
                frames += 1
            } catch {
                c.inbox.append(.framingError(error))
                c.finish()
                c.answersBuffered = false
            }
        }
        if frames > 0 {
            let pending = c.pendingCount
            shared.statistics.withLock {
                $0.framesReceived += frames
                $0.peakPendingRequests = max($0.peakPendingRequests, pending)
            }
        }
    }

    /// Admits `c`'s waiting large `SNAPSHOT` frame once its `HELLO` is accepted and the memory
    /// budget has room (one frame always fits); refuses it when no `HELLO` is on its way.
    private func admitLargeFrame(_ c: ServerConnection) -> Bool {
        guard let length = c.decoder.waitingLargeFrame else { return false }
        guard c.session != nil else {
            if !c.answering && c.pendingCount == 0 {
                c.inbox.append(
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
        guard largeFrameBytes == 0 || largeFrameBytes + length <= configuration.snapshotMemoryBudget else {
            if waitingForMemory.insert(c.id).inserted { shared.statistics.withLock { $0.largeFrameWaits += 1 } }
            return false
        }
        waitingForMemory.remove(c.id)
        largeFrameBytes += length
        let held = largeFrameBytes
        shared.statistics.withLock {
            $0.largeFramesAdmitted += 1
            $0.peakLargeFrameBytes = max($0.peakLargeFrameBytes, held)
        }
        c.largeFrameBytes += length
        c.decoder.admitLargeFrame()
        touched.append(c)
        return true
    }

    /// Gives back `bytes` of `c`'s large frames, and lets the connections waiting for room try again.
    private func releaseLargeFrame(_ c: ServerConnection, _ bytes: Int) {
        guard bytes > 0 else { return }
        c.largeFrameBytes -= bytes
        largeFrameBytes -= bytes
        for id in waitingForMemory {
            if let waiting = connections[id], !waiting.answering { dispatch(waiting) } else { waitingForMemory.remove(id) }
        }
    }

    // MARK: answering

    /// Hands the connection's next request to a worker: one at a time, in order, and none while
    /// its unsent output is over `maxOutputBytes` (a client that does not read its answers
    /// holds at most that much of them; the flush that drains it dispatches again).
    private func dispatch(_ c: ServerConnection) {
        guard !c.answering, c.unsentCount < configuration.maxOutputBytes else { return }
        extractFrames(c)
        guard c.pendingCount > 0 else { return }
        if c.session == nil && !unauthorized.admit(c.host, now: clock.now) {
            // Its address failed authentication recently: this HELLO waits (the sweep retries).
            if !c.throttled {
                c.throttled = true
                shared.statistics.withLock { $0.throttledHellos += 1 }
            }
            return
        }
        guard let item = c.popItem() else { return }
        touched.append(c)
        c.answering = true
        if case .payload(let p) = item, p.count > configuration.maxFrame { c.answeringLargeFrame = p.count }
        let processor = self.processor
        let shared = self.shared
        let session = c.session
        let id = c.id
        let peer = c.peer
        let submitted = workers.submit {
            let outcome = processor.process(item, session: session, connectionID: id, peer: peer)
            shared.completions.withLock { $0.append((id, outcome)) }
            let fd = shared.wakeFD.load(ordering: .acquiring)
            if fd >= 0 { Posix.wake(fd) }
        }
        if !submitted { close(c) }
    }

    private func applyCompletions() {
        let done = shared.completions.withLock { list -> [(id: UInt64, outcome: Outcome)] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for (id, outcome) in done {
            guard let c = connections[id] else { continue }
            touched.append(c)
            c.answering = false
            releaseLargeFrame(c, c.answeringLargeFrame)
            c.answeringLargeFrame = 0
            if outcome.failedAuthentication { unauthorized.failed(c.host, now: clock.now) }
            if c.session == nil && outcome.session != nil {
                if outcome.authenticated { unauthorized.succeeded(c.host) }
                beforeHello -= 1
                compactBeforeHello()
            }
            c.session = outcome.session
            queue(outcome.bytes, on: c)
            c.lastActivity = clock.now
            if let code = outcome.error { shared.statistics.withLock { $0.errors[code, default: 0] += 1 } }
            if outcome.close {
                c.finish()
                c.discardInbox()
            }
            flush(c)
            if connections[id] != nil {
                dispatch(c)
                finishIfDone(c)
            }
        }
    }

    /// Adds an answer to the connection's output, through its secure channel when it has one.
    private func queue(_ bytes: [UInt8], on c: ServerConnection) {
        defer { notePeakUnsent(c) }
        guard let channel = c.channel else {
            c.output.append(contentsOf: bytes)
            return
        }
        do {
            try channel.send(bytes)
            c.output.append(contentsOf: channel.takeCiphertext())
        } catch {
            c.finish()
            c.discardInbox()
        }
    }

    private func notePeakUnsent(_ c: ServerConnection) {
        guard c.unsentCount > peakUnsent else { return }
        peakUnsent = c.unsentCount
        shared.statistics.withLock { $0.peakUnsentBytes = c.unsentCount }
    }

    private func flush(_ c: ServerConnection) {
        defer { touched.append(c) }
        while c.unsentCount > 0 {
            let result: IOResult
            do {
                result = try c.output.withUnsafeBytes { raw in
                    try Posix.send(c.fd, UnsafeRawBufferPointer(rebasing: raw[c.outputOffset...]))
                }
            } catch {
                close(c)  // the peer is gone
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(let n):
                c.outputOffset += n
                c.lastActivity = clock.now
                if c.outputOffset >= 1 << 20 && c.outputOffset * 2 >= c.output.count {
                    c.output.removeFirst(c.outputOffset)  // a reader that never fully catches up
                    c.outputOffset = 0
                }
            }
        }
        c.output.removeAll(keepingCapacity: c.output.capacity <= 65536)
        c.outputOffset = 0
        finishIfDone(c)
    }

    /// Closes a connection that asked for it once everything it read is answered and sent:
    /// shut down our side, then drain the peer briefly so unread bytes do not turn our
    /// last frame into a reset.
    private func finishIfDone(_ c: ServerConnection) {
        guard case .finishing = c.phase, !c.answering, c.pendingCount == 0, c.unsentCount == 0 else { return }
        extractFrames(c)  // complete requests still buffered come first
        guard c.pendingCount == 0 else {
            dispatch(c)
            return
        }
        Posix.shutdownWrite(c.fd)
        c.phase = .lingering(until: clock.now + Self.lingerTime)
        touched.append(c)
    }

    private func close(_ c: ServerConnection) {
        guard connections.removeValue(forKey: c.id) != nil else { return }
        poller.remove(c.fd)
        Posix.close(c.fd)
        waitingForMemory.remove(c.id)
        releaseLargeFrame(c, c.largeFrameBytes)
        if c.isRefusal {
            refusals -= 1
            return
        }
        if let n = openPerAddress[c.host] { openPerAddress[c.host] = n > 1 ? n - 1 : nil }
        if c.session == nil { beforeHello -= 1 }
        shared.statistics.withLock { $0.open = connections.count - refusals }
        let session = c.session
        let peer = c.peer
        let handler = self.handler
        workers.submit { handler.closed(session: session, peer: peer) }
    }

    // MARK: limits and stopping

    private func sweep(_ now: ContinuousClock.Instant) {
        if lastForget.map({ now - $0 >= .seconds(1) }) ?? true {
            unauthorized.forgetOld(now: now)
            lastForget = now
        }
        for c in Array(connections.values) {
            if case .lingering(let until) = c.phase {
                if now >= until { close(c) }
                continue
            }
            if c.throttled && !c.answering { dispatch(c) }  // a held-back HELLO whose wait may be over
            guard connections[c.id] != nil else { continue }
            if !c.answering && c.pendingCount == 0 && now - c.lastActivity >= configuration.idleTimeout {
                shared.statistics.withLock { $0.idleClosed += 1 }
                close(c)
                continue
            }
            guard case .reading = c.phase else { continue }
            if c.session == nil && c.waitsOnClient && now - c.acceptedAt >= configuration.helloTimeout {
                shared.statistics.withLock { $0.helloTimedOut += 1 }
                answerAndFinish(
                    c, ATLPError(.helloRequired, "no HELLO within \(configuration.helloTimeout); a connection starts with HELLO"))
                continue
            }
            // The minimum-rate clock of a frame in progress runs only while we wait on the client:
            // it gets the grace period plus one second per `minimumFrameRate` bytes received.
            if c.decoder.bufferedCount == 0 {
                c.partialSince = nil
            } else if let since = c.partialSince, c.waitsOnClient, c.decoder.waitingLargeFrame == nil {
                let allowed =
                    configuration.frameGracePeriod
                    + .milliseconds(Int64(c.decoder.bufferedCount) * 1000 / Int64(configuration.minimumFrameRate))
                if now - since > allowed {
                    shared.statistics.withLock { $0.slowFramesClosed += 1 }
                    close(c)
                }
            } else {
                c.partialSince = now
            }
        }
    }

    /// Sends a closing `ERR` the loop decided on itself (not a worker), then finishes the connection.
    private func answerAndFinish(_ c: ServerConnection, _ error: ATLPError) {
        c.discardInbox()
        c.finish()
        queue(error.frame.encoded, on: c)
        shared.statistics.withLock { $0.errors[error.code, default: 0] += 1 }
        flush(c)
    }

    private func beginStop(_ now: ContinuousClock.Instant) {
        stopDeadline = now + configuration.stopGracePeriod
        if listening {
            poller.remove(listener)
            shared.listenerFD.store(-1, ordering: .releasing)
            Posix.close(listener)
            listening = false
        }
        for c in Array(connections.values) {
            c.finish()
            touched.append(c)
            finishIfDone(c)
        }
    }
}
