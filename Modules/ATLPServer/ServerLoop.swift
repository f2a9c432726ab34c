import ATLPWire
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

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

    init(
        listener: Int32, wakeRead: Int32, wakeWrite: Int32, configuration: ATLPServerConfiguration,
        processor: RequestProcessor, handler: any ATLPHandler, workers: WorkerPool, shared: ServerShared
    ) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
        self.configuration = configuration
        self.processor = processor
        self.handler = handler
        self.workers = workers
        self.shared = shared
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
                    if revents & Int32(POLLOUT) != 0 { flush(c) }
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
            } catch {
                // Out of fds (EMFILE/ENFILE) or a connection aborted while queued: pause
                // accepting briefly instead of spinning on a listener that stays readable.
                acceptPausedUntil = clock.now + .milliseconds(100)
                return
            }
            guard let (fd, peer) = accepted else { return }
            let full = connections.count - refusals >= configuration.maxConnections
            if full && refusals >= Self.maxRefusals {
                refuse(fd)  // a flood: no lingering for these
                continue
            }
            try? Posix.setNoDelay(fd)
            let now = clock.now
            let c = ServerConnection(
                id: nextID, fd: fd, peer: peer.description, maxFrame: configuration.maxFrame, now: now, isRefusal: full)
            nextID += 1
            do {
                try poller.add(fd, id: c.id, events: interest(c))
                c.registered = interest(c)
            } catch {
                Posix.close(fd)
                continue
            }
            connections[c.id] = c
            if full {
                // Refused like any closing error: the ERR, then a drained half-close, so a
                // client that already sent its HELLO reads the reason instead of a reset.
                refusals += 1
                c.output = refusalFrame()
                shared.statistics.withLock {
                    $0.refused += 1
                    $0.errors[.tooManyConnections, default: 0] += 1
                }
                flush(c)
                continue
            }
            shared.statistics.withLock {
                $0.accepted += 1
                $0.open = connections.count - refusals
            }
        }
    }

    private func refusalFrame() -> [UInt8] {
        ATLPFrame.error(
            .tooManyConnections,
            "the collector has its maximum of \(configuration.maxConnections) connections open; retry later"
        ).encoded
    }

    /// Full, and already refusing many: tell the client why in one frame (best effort,
    /// never blocking), then close at once.
    private func refuse(_ fd: Int32) {
        let frame = refusalFrame()
        _ = try? frame.withUnsafeBytes { try Posix.send(fd, $0) }
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
            return c.pendingCount < configuration.maxPendingRequests && c.unsentCount < configuration.maxOutputBytes
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
                c.finish()
                finishIfDone(c)
                return
            case .processed(let n):
                budget -= n
                c.lastActivity = clock.now
                if c.isLingering { continue }  // discarding until EOF
                readBuffer.withUnsafeBytes { c.decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                extractFrames(c)
                dispatch(c)
            }
        }
    }

    private func extractFrames(_ c: ServerConnection) {
        var frames = 0
        while case .reading = c.phase {
            do {
                guard let payload = try c.decoder.next() else { break }
                c.inbox.append(.payload(payload))
                frames += 1
            } catch {
                c.inbox.append(.framingError(error))
                c.finish()
            }
        }
        if frames > 0 { shared.statistics.withLock { $0.framesReceived += frames } }
    }

    // MARK: answering

    private func dispatch(_ c: ServerConnection) {
        guard !c.answering, let item = c.popItem() else { return }
        touched.append(c)
        c.answering = true
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
            c.session = outcome.session
            c.output.append(contentsOf: outcome.bytes)
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
        Posix.shutdownWrite(c.fd)
        c.phase = .lingering(until: clock.now + Self.lingerTime)
        touched.append(c)
    }

    private func close(_ c: ServerConnection) {
        guard connections.removeValue(forKey: c.id) != nil else { return }
        poller.remove(c.fd)
        Posix.close(c.fd)
        if c.isRefusal {
            refusals -= 1
            return
        }
        shared.statistics.withLock { $0.open = connections.count - refusals }
        let session = c.session
        let peer = c.peer
        let handler = self.handler
        workers.submit { handler.closed(session: session, peer: peer) }
    }

    // MARK: limits and stopping

    private func sweep(_ now: ContinuousClock.Instant) {
        for c in Array(connections.values) {
            if case .lingering(let until) = c.phase {
                if now >= until { close(c) }
                continue
            }
            if !c.answering && c.pendingCount == 0 && now - c.lastActivity >= configuration.idleTimeout {
                shared.statistics.withLock { $0.idleClosed += 1 }
                close(c)
            }
        }
    }

    private func beginStop(_ now: ContinuousClock.Instant) {
        stopDeadline = now + configuration.stopGracePeriod
        if listening {
            poller.remove(listener)
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
