package import SecureChannel
package import SystemCalls
import Synchronization

/// One I/O thread's loop over a listening socket (epoll, or poll where epoll is missing): accept,
/// read, hand bytes to the protocol, write answers, enforce the limits every protocol shares, and
/// stop gracefully. What is particular to a protocol (its requests, answers, deadlines, counters)
/// comes from `P`. Lives and dies on that one thread; answers are computed on `workers`.
///
/// A slow or hostile client costs only its own buffers: writes never block the loop, reading from
/// a connection pauses while its unsent output is at `maxOutputBytes`, its queued requests at
/// `maxPendingRequests`, or its undecoded bytes at the protocol's bound, and a connection that
/// ends its stream (half-close) has every request read before it answered, then is closed.
package final class ConnectionLoop<P: ConnectionProtocol> {
    package let logic: P
    package let settings: ConnectionLoopSettings
    package let workers: ThreadPool
    package let shared: LoopShared<P.Answer, P.Statistics>
    package let security: SecureChannelFactory?
    package let clock = ContinuousClock()
    private let listener: Int32
    private let wakeRead: Int32
    private let poller: any Poller

    package private(set) var connections: [UInt64: Connection<P>] = [:]
    /// How many of `connections` are refusals being closed.
    package private(set) var refusals = 0
    private var nextID: UInt64 = 1
    private var listening = true
    private var listenerInterest: Int16 = 0
    private var acceptPausedUntil: ContinuousClock.Instant?
    private var stopDeadline: ContinuousClock.Instant?
    private var readBuffer = [UInt8](repeating: 0, count: 65536)
    /// Open connections (not refusals) by peer IP address.
    private var openPerAddress: [String: Int] = [:]
    /// Accepts clients, with a spare fd to refuse one when the process is out of fds.
    private var acceptor = Acceptor()
    /// Connections whose interest may have changed since the last wait.
    private var touched: [Connection<P>] = []
    private var lastSweep: ContinuousClock.Instant?

    private static var wakeID: UInt64 { .max }
    private static var listenerID: UInt64 { .max - 1 }

    /// Serves `listener` (listening, non-blocking) until `shared.stopRequested`; `wakeRead` is the
    /// read end of the pipe whose write end is `shared.wakeFD`.
    package init(
        listener: Int32, wakeRead: Int32, logic: P, settings: ConnectionLoopSettings, workers: ThreadPool,
        shared: LoopShared<P.Answer, P.Statistics>, security: SecureChannelFactory?
    ) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.logic = logic
        self.settings = settings
        self.workers = workers
        self.shared = shared
        self.security = security
        if settings.useEpoll, let p = try? EpollPoller() {
            poller = p
        } else {
            poller = PollPoller()
        }
    }

    /// Open connections, refusals not counted.
    package var openCount: Int { connections.count - refusals }

    package func run() {
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
            updateInterests(now)
            let ready: [(id: UInt64, events: Int16)]
            do {
                ready = try poller.wait(timeoutMilliseconds: max(1, Int32(clamping: settings.pollInterval.milliseconds)))
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
                    if revents & Int32(POLLOUT) != 0 { flush(c) }
                    guard connections[id] != nil else { continue }
                    if revents & Int32(POLLIN) != 0 {
                        readFrom(c)
                    } else if revents & Int32(POLLERR | POLLHUP) != 0 {
                        // Reset or fully closed while we were not reading: nothing more can be sent
                        // or received (level-triggered, it would wake us forever).
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
        acceptor.close()
    }

    /// Only connections that changed are looked at: a thousand quiet ones cost nothing.
    private func updateInterests(_ now: ContinuousClock.Instant) {
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
    }

    private func interest(_ c: Connection<P>) -> Int16 {
        var events: Int16 = 0
        if wantsRead(c) { events |= Int16(POLLIN) }
        if c.unsentCount > 0 && !c.isLingering { events |= Int16(POLLOUT) }
        return events
    }

    /// `c`'s interest may have changed (looked at before the next wait).
    package func touch(_ c: Connection<P>) {
        touched.append(c)
    }

    // MARK: accepting

    private func acceptConnections() {
        for _ in 0..<64 {
            switch acceptor.next(on: listener, refuse: { refuseAtOnce($0, .outOfDescriptors) }) {
            case .accepted(let fd, let peer): admit(fd, peer)
            case .refusedOutOfDescriptors: continue
            case .empty: return
            case .failed:
                acceptPausedUntil = clock.now + .milliseconds(100)
                return
            }
        }
    }

    private func admit(_ fd: Int32, _ peer: SocketAddress) {
        let crowded = (openPerAddress[peer.host] ?? 0) >= settings.maxConnectionsPerAddress
        let full = logic.admission.makeRoom(full: openCount >= settings.maxConnections, crowded: crowded, loop: self)
        let isRefusal = full || crowded
        let cause = RefusalCause.limit(full: full, crowded: crowded, host: peer.host)
        if isRefusal && (refusals >= settings.maxRefusals || security != nil) {
            refuseAtOnce(fd, cause)  // a flood, or a secure listener (a refusal cannot wait for a handshake)
            return
        }
        var channel: (any SecureChannel)?
        if !isRefusal, let security {
            do {
                channel = try security(peer.host)
            } catch {
                Posix.close(fd)
                return
            }
        }
        try? Posix.setNoDelay(fd)
        let now = clock.now
        let c = Connection<P>(
            id: nextID, fd: fd, peer: peer, state: logic.decoder.makeState(peer: peer, now: now), channel: channel, now: now,
            isRefusal: isRefusal)
        nextID += 1
        do {
            try poller.add(fd, id: c.id, events: interest(c))
            c.registered = interest(c)
        } catch {
            Posix.close(fd)
            return
        }
        connections[c.id] = c
        if isRefusal {
            // Answered like any closing error: the refusal, then a drained half-close, so a client
            // that already sent its request reads the reason instead of a reset.
            refusals += 1
            c.output = logic.admission.refusal(cause)
            logic.admission.countRefusal()
            flush(c)
            return
        }
        openPerAddress[peer.host, default: 0] += 1
        logic.admission.opened(c, loop: self)
    }

    /// Tells a plain client why in one write (best effort, never blocking), then closes at once.
    private func refuseAtOnce(_ fd: Int32, _ cause: RefusalCause) {
        if security == nil {
            let bytes = logic.admission.refusal(cause)
            _ = try? bytes.withUnsafeBytes { try Posix.send(fd, $0) }
        }
        Posix.shutdownWrite(fd)
        Posix.close(fd)
        logic.admission.countRefusal()
    }

    // MARK: reading

    /// Bounded read-ahead: queued requests, unsent output, and bytes not yet cut into requests
    /// (the protocol's `hasRoom`) each stop reading until they drain. A lingering connection is
    /// read to discard what arrives.
    package func wantsRead(_ c: Connection<P>) -> Bool {
        switch c.phase {
        case .lingering: return true
        case .finishing: return false
        case .reading:
            return c.pendingCount < settings.maxPendingRequests && c.unsentCount < settings.maxOutputBytes && logic.decoder.hasRoom(c)
        }
    }

    private func readFrom(_ c: Connection<P>) {
        defer { touched.append(c) }
        // A fair share per wakeup: one busy client cannot monopolise the loop.
        var budget = 4 * readBuffer.count
        while budget > 0 && wantsRead(c) {
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
                endOfStream(c)
                return
            case .processed(let n):
                budget -= n
                c.lastActivity = clock.now
                let first = c.bytesRead == 0
                c.bytesRead += n
                if c.isLingering { continue }  // discarding until EOF
                if first && logic.decoder.refusesFirstByte(readBuffer[0], on: c, loop: self) { return }
                guard let channel = c.channel else {
                    readBuffer.withUnsafeBytes { logic.decoder.received(UnsafeRawBufferPointer(rebasing: $0[0..<n]), on: c, loop: self) }
                    logic.responder.advance(c, loop: self)
                    continue
                }
                do {
                    try channel.receive(readBuffer[0..<n])
                    let plaintext = try channel.readPlaintext()
                    plaintext.withUnsafeBytes { logic.decoder.received($0, on: c, loop: self) }
                    c.output.append(contentsOf: channel.takeCiphertext())  // handshake answers
                } catch {
                    close(c)  // a failed handshake or a damaged record: nothing can be answered
                    return
                }
                logic.responder.advance(c, loop: self)
                if c.unsentCount > 0 {
                    flush(c)
                    guard connections[c.id] != nil else { return }
                }
                if channel.isClosed {
                    endOfStream(c)
                    return
                }
            }
        }
    }

    /// The client ended its stream (half-close): nothing more is read, every request read before
    /// it is answered and sent, then our side shuts down.
    private func endOfStream(_ c: Connection<P>) {
        c.finish()
        logic.responder.advance(c, loop: self)
        finishIfDone(c)
    }

    // MARK: answering

    /// Computes `c`'s next answer on a worker (`c` is `answering` until `P.answered` gets it);
    /// closes `c` when the workers are stopping.
    package func answer(_ c: Connection<P>, with work: @escaping @Sendable () -> P.Answer) {
        touched.append(c)
        c.answering = true
        let shared = self.shared
        let id = c.id
        let submitted = workers.submit {
            let answer = work()
            shared.completions.withLock { $0.append((id, answer)) }
            let fd = shared.wakeFD.load(ordering: .acquiring)
            if fd >= 0 { Posix.wake(fd) }
        }
        if !submitted { close(c) }
    }

    private func applyCompletions() {
        let done = shared.completions.withLock { list -> [(connection: UInt64, answer: P.Answer)] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for (id, answer) in done {
            guard let c = connections[id] else { continue }
            touched.append(c)
            c.answering = false
            logic.responder.answered(answer, on: c, loop: self)
        }
    }

    /// Adds bytes to `c`'s output, through its secure channel when it has one (a channel that
    /// fails finishes `c`).
    package func queue(_ bytes: [UInt8], on c: Connection<P>) {
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

    /// Writes what the socket takes of `c`'s output; once it drains, a finishing connection shuts
    /// down, and either way the protocol may go on (output under the cap again, maybe).
    package func flush(_ c: Connection<P>) {
        defer { touched.append(c) }
        let sent: (sent: Int, drained: Bool)
        do {
            sent = try Posix.sendPending(c.fd, &c.output, offset: &c.outputOffset)
        } catch {
            close(c)  // the peer is gone
            return
        }
        if sent.sent > 0 {
            c.lastActivity = clock.now
            c.lastSendProgress = c.lastActivity
        }
        if sent.drained {
            if c.waitsOnClient { c.waitingSince = clock.now }
            finishIfDone(c)
        }
        if !c.answering { logic.responder.advance(c, loop: self) }  // the next request may wait for this
    }

    /// Closes a finishing connection once everything it read is answered and sent: shut down our
    /// side, then drain the peer briefly (`lingerTime`) so unread bytes do not turn our last
    /// answer into a reset.
    package func finishIfDone(_ c: Connection<P>) {
        guard case .finishing = c.phase, !c.answering, c.pendingCount == 0, c.unsentCount == 0 else { return }
        if logic.responder.answersBufferedRequest(c, loop: self) { return }  // complete requests still buffered come first
        Posix.shutdownWrite(c.fd)
        c.phase = .lingering(until: clock.now + settings.lingerTime)
        touched.append(c)
    }

    /// Closes `c` after one write of `bytes` (through its channel), best effort and never
    /// blocking: the reason for an eviction a client may read, or may not.
    package func close(_ c: Connection<P>, after bytes: [UInt8]) {
        queue(bytes, on: c)
        if c.unsentCount > 0 { _ = try? Posix.sendPending(c.fd, &c.output, offset: &c.outputOffset) }
        close(c)
    }

    package func close(_ c: Connection<P>) {
        guard connections.removeValue(forKey: c.id) != nil else { return }
        poller.remove(c.fd)
        Posix.close(c.fd)
        if c.isRefusal {
            refusals -= 1
            return
        }
        let host = c.peer.host
        if let n = openPerAddress[host] { openPerAddress[host] = n > 1 ? n - 1 : nil }
        logic.admission.closed(c, loop: self)
    }

    // MARK: deadlines and stopping

    private func sweep(_ now: ContinuousClock.Instant) {
        logic.deadlines.sweepBegins(now: now, loop: self)
        for c in Array(connections.values) where connections[c.id] === c {
            if case .lingering(let until) = c.phase {
                if now >= until { close(c) }
                continue
            }
            if let idle = settings.idleTimeout, !c.answering, c.pendingCount == 0, now - c.lastActivity >= idle {
                logic.deadlines.closingIdle(c)
                close(c)
                continue
            }
            logic.deadlines.sweep(c, now: now, loop: self)
        }
    }

    private func beginStop(_ now: ContinuousClock.Instant) {
        stopDeadline = now + settings.stopGracePeriod
        if listening {
            poller.remove(listener)
            shared.listenerFD.store(-1, ordering: .releasing)
            Posix.close(listener)
            listening = false
        }
        for c in Array(connections.values) {
            if logic.deadlines.closesAtStop(c) {
                close(c)
                continue
            }
            c.finish()
            touched.append(c)
            finishIfDone(c)
        }
    }
}
