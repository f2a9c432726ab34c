import SecureChannel
import SystemCalls

/// A handler's response on its way back to the I/O thread, with what sending it needs to know.
struct Answered: Sendable {
    var connection: UInt64
    var response: HTTPResponse
    var closes: Bool
    var keepAliveHTTP10: Bool
    var omitBody: Bool
}

/// The I/O thread's loop: accept, read, parse, hand requests to workers, write responses,
/// enforce limits and deadlines, and stop gracefully. Lives and dies on that one thread.
final class HTTPLoop {
    let listener: Int32
    let wakeRead: Int32
    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let workers: ThreadPool
    let shared: HTTPShared
    let security: SecureChannelFactory?
    let clock = ContinuousClock()

    var epoll: Posix.Epoll?
    var connections: [UInt64: HTTPConnection] = [:]
    /// How many of `connections` are refusals being closed.
    var refusals = 0
    static let maxRefusals = 64
    var nextID: UInt64 = 1
    var listening = true
    var listenerInterest: Int16 = 0
    var acceptPausedUntil: ContinuousClock.Instant?
    var stopDeadline: ContinuousClock.Instant?
    var readBuffer = [UInt8](repeating: 0, count: 65536)
    static let lingerTime = Duration.seconds(2)
    /// Open connections (not refusals) by peer IP address.
    var openPerAddress: [String: Int] = [:]
    /// A spare fd, given up to accept (and refuse) a client when the process is out of fds.
    var reserveFD: Int32
    /// Connections whose interest may have changed since the last wait.
    var touched: [HTTPConnection] = []
    var lastSweep: ContinuousClock.Instant?
    /// Open connections (not refusals) that have not sent a whole request yet.
    var awaitingFirstRequest = 0
    /// The `Date` value, made once a second.
    var date: (second: Int64, text: String) = (-1, "")

    static let wakeID = UInt64.max
    static let listenerID = UInt64.max - 1

    init(
        listener: Int32, wakeRead: Int32, configuration: HTTPServerConfiguration, handler: any HTTPHandler,
        workers: ThreadPool, shared: HTTPShared, security: SecureChannelFactory?
    ) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.configuration = configuration
        self.handler = handler
        self.workers = workers
        self.shared = shared
        self.security = security
        reserveFD = (try? Posix.open("/dev/null", O_RDONLY)) ?? -1
    }

    func run() {
        do {
            let e = try Posix.Epoll()
            try e.add(wakeRead, id: Self.wakeID, events: Int16(POLLIN))
            try e.add(listener, id: Self.listenerID, events: 0)
            epoll = e
        } catch {
            shared.stopRequested.store(true, ordering: .releasing)  // cannot serve: stop at once
        }
        while let epoll {
            let now = clock.now
            if stopDeadline == nil, shared.stopRequested.load(ordering: .acquiring) { beginStop(now) }
            if let deadline = stopDeadline, connections.isEmpty || now >= deadline { break }

            for c in touched where connections[c.id] === c {
                let want = interest(c)
                if want != c.registered {
                    do {
                        try epoll.modify(c.fd, id: c.id, events: want)
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
                try? epoll.modify(listener, id: Self.listenerID, events: wantListener)
                listenerInterest = wantListener
            }
            let ready: [Posix.Epoll.Ready]
            do {
                ready = try epoll.wait(timeoutMilliseconds: 50)
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
                        close(c)  // reset or fully closed while we were not reading
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
        epoll = nil
    }

    private func interest(_ c: HTTPConnection) -> Int16 {
        var events: Int16 = 0
        if wantsRead(c) { events |= Int16(POLLIN) }
        if c.unsentCount > 0 && !c.isLingering { events |= Int16(POLLOUT) }
        return events
    }

    private func currentDate() -> String {
        let second = Posix.wallClockMillis() / 1000
        if second != date.second { date = (second, HTTPDate.format(epochSeconds: second)) }
        return date.text
    }

    private func count(_ change: (inout HTTPServerStatistics) -> Void) {
        shared.statistics.withLock { change(&$0) }
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
                    refuseAtOnce(fd, "the server is out of file descriptors; retry later")
                }
                reserveFD = (try? Posix.open("/dev/null", O_RDONLY)) ?? -1
                continue
            } catch {
                // Out of fds with no spare, or a connection aborted while queued: pause accepting
                // briefly instead of spinning on a listener that stays readable.
                acceptPausedUntil = clock.now + .milliseconds(100)
                return
            }
            guard let (fd, peer) = accepted else { return }
            admit(fd, peer)
        }
    }

    private func admit(_ fd: Int32, _ peer: SocketAddress) {
        var full = connections.count - refusals >= configuration.maxConnections
        let crowded = (openPerAddress[peer.host] ?? 0) >= configuration.maxConnectionsPerAddress
        if !crowded && awaitingFirstRequest >= max(1, configuration.maxConnections / 2),
            let victim = longestWaiting(beforeFirstRequest: true)
        {
            // Half the slots at most wait for a first request: slow heads evict each other and
            // leave the rest to connections that have been served (kept alive) or are being served.
            evict(victim)
            full = false
        } else if full && !crowded, let victim = longestWaiting(beforeFirstRequest: false) {
            evict(victim)
            full = false
        }
        let reason =
            crowded
            ? "too many connections from your address; close some or retry later"
            : "the server has its maximum of connections open; retry later"
        if full || crowded {
            if refusals >= Self.maxRefusals || security != nil {
                refuseAtOnce(fd, reason)  // a flood, or TLS (a refusal cannot wait for a handshake)
                return
            }
        }
        try? Posix.setNoDelay(fd)
        let c = HTTPConnection(
            id: nextID, fd: fd, peer: peer, limits: configuration, secure: security != nil, now: clock.now,
            isRefusal: full || crowded)
        nextID += 1
        do {
            try epoll?.add(fd, id: c.id, events: interest(c))
            c.registered = interest(c)
        } catch {
            Posix.close(fd)
            return
        }
        connections[c.id] = c
        if c.isRefusal {
            // Answered like any closing error: the 503, then a drained half-close, so a client
            // that already sent its request reads the answer instead of a reset.
            refusals += 1
            c.output = refusalBytes(reason)
            count {
                $0.refused += 1
                $0.responses[503, default: 0] += 1
            }
            flush(c)
            return
        }
        openPerAddress[peer.host, default: 0] += 1
        awaitingFirstRequest += 1
        count {
            $0.accepted += 1
            $0.open = connections.count - refusals
        }
        if let security {
            do {
                c.channel = try security(peer.host)
            } catch {
                close(c)
            }
        }
    }

    private func refusalBytes(_ reason: String) -> [UInt8] {
        var response = HTTPResponse.error(.serviceUnavailable, reason)
        response.headers.set("Retry-After", "1")
        return ResponseWriter.serialize(response, date: currentDate(), closing: true, keepAliveHTTP10: false, omitBody: false)
    }

    /// Tells a plain-HTTP client why in one write (best effort, never blocking), then closes at once.
    private func refuseAtOnce(_ fd: Int32, _ reason: String) {
        if security == nil {
            let bytes = refusalBytes(reason)
            _ = try? bytes.withUnsafeBytes { try Posix.send(fd, $0) }
        }
        Posix.shutdownWrite(fd)
        Posix.close(fd)
        count {
            $0.refused += 1
            $0.responses[503, default: 0] += 1
        }
    }

    /// The connection that has waited longest on its client with no request being answered:
    /// an idle kept-alive one, a slow head or a slow body. nil when every one is busy.
    private func longestWaiting(beforeFirstRequest: Bool) -> HTTPConnection? {
        var best: HTTPConnection?
        for c in connections.values where !c.isRefusal && c.isReading && c.waitsOnClient {
            if beforeFirstRequest && c.requestsRead > 0 { continue }
            let since = c.partialSince.map { max($0, c.waitingSince) } ?? c.waitingSince
            let bestSince = best.map { b in b.partialSince.map { max($0, b.waitingSince) } ?? b.waitingSince }
            if bestSince.map({ since < $0 }) ?? true { best = c }
        }
        return best
    }

    /// Closes a waiting connection to make room: a 408 when it was sending a request, silently
    /// when it was idle (as a kept-alive connection may be closed at any time).
    private func evict(_ c: HTTPConnection) {
        if c.partialSince != nil {
            queue(timeoutBytes("the server needed room and this request was the slowest"), on: c)
            if c.unsentCount > 0 {
                _ = try? c.output.withUnsafeBytes { raw in try Posix.send(c.fd, UnsafeRawBufferPointer(rebasing: raw[c.outputOffset...])) }
            }
            count { $0.responses[408, default: 0] += 1 }
        }
        count { $0.evicted += 1 }
        close(c)
    }

    private func timeoutBytes(_ message: String) -> [UInt8] {
        ResponseWriter.serialize(
            .error(.requestTimeout, message), date: currentDate(), closing: true, keepAliveHTTP10: false, omitBody: false)
    }

    // MARK: reading

    private func wantsRead(_ c: HTTPConnection) -> Bool {
        switch c.phase {
        case .lingering: return true
        case .finishing: return false
        case .reading:
            // Bounded read-ahead: queued requests, unsent responses, and bytes not yet parsed
            // (room for one whole request) each stop reading until they drain.
            return c.pendingCount < configuration.maxPipelinedRequests && c.unsentCount < configuration.maxOutputBytes
                && c.parser.bufferedCount <= configuration.maxHeaderBytes + configuration.maxBodyBytes
        }
    }

    private func readFrom(_ c: HTTPConnection) {
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
                c.finish()
                finishIfDone(c)
                return
            case .processed(let n):
                budget -= n
                defer { c.bytesRead += n }
                if c.isLingering { continue }  // discarding until EOF
                if c.bytesRead == 0, c.channel != nil, (65...90).contains(readBuffer[0]) {
                    answerPlainOnSecurePort(c)
                    continue
                }
                guard let channel = c.channel else {
                    c.parser.append(readBuffer[0..<n])
                    parse(c)
                    continue
                }
                do {
                    try channel.receive(readBuffer[0..<n])
                    c.parser.append(try channel.readPlaintext())
                    c.output.append(contentsOf: channel.takeCiphertext())  // handshake answers
                } catch {
                    close(c)  // a failed handshake or a damaged record: nothing can be answered
                    return
                }
                parse(c)
                if c.unsentCount > 0 {
                    flush(c)
                    guard connections[c.id] != nil else { return }
                }
                if channel.isClosed {
                    c.finish()
                    finishIfDone(c)
                    return
                }
            }
        }
    }

    /// A plain HTTP request (a capital letter where a TLS record starts with 0x16) on the HTTPS
    /// port: told so in plain HTTP, which its client can read, then closed.
    private func answerPlainOnSecurePort(_ c: HTTPConnection) {
        c.channel = nil
        c.finish()
        c.discardInbox()
        c.output += ResponseWriter.serialize(
            .error(.badRequest, "this port speaks HTTPS; use an https:// address"), date: currentDate(), closing: true,
            keepAliveHTTP10: false, omitBody: false)
        count {
            $0.responses[400, default: 0] += 1
            $0.protocolMismatches += 1
        }
        flush(c)
    }

    /// Cuts buffered bytes into requests and answers the next one if none is being answered.
    private func parse(_ c: HTTPConnection) {
        extractRequests(c)
        dispatch(c)
    }

    /// Cuts buffered bytes into requests, up to `maxPipelinedRequests` queued: the rest waits in
    /// the parser until the queue drains.
    private func extractRequests(_ c: HTTPConnection) {
        let now = clock.now
        var parsed = 0
        var completed = false
        while c.isReading, c.pendingCount < configuration.maxPipelinedRequests, let item = c.parser.next() {
            c.inbox.append(item)
            parsed += 1
            completed = true
            if case .failure = item { c.finish() }  // nothing after it is read
        }
        if c.parser.bufferedCount == 0 && !c.parser.isReadingBody {
            c.partialSince = nil
        } else if completed || c.partialSince == nil {
            c.partialSince = now
        }
        if parsed > 0 {
            if c.requestsRead == 0 { awaitingFirstRequest -= 1 }
            c.requestsRead += parsed
            let pending = c.pendingCount
            count { $0.peakPipelined = max($0.peakPipelined, pending) }
        }
    }

    // MARK: answering

    private func dispatch(_ c: HTTPConnection) {
        // One request at a time, and none while the client has not read enough of the answers:
        // a client that does not read costs at most `maxOutputBytes` and one response.
        guard !c.answering, connections[c.id] === c, c.unsentCount < configuration.maxOutputBytes else { return }
        extractRequests(c)
        guard let item = c.popItem() else {
            if c.parser.wantsContinue && c.isReading && c.unsentCount == 0 {
                // The body is wanted and everything before it is answered: ask for it.
                c.parser.continueSent()
                queue(ResponseWriter.continueBytes, on: c)
                count { $0.responses[100, default: 0] += 1 }
                flush(c)
            }
            return
        }
        touched.append(c)
        switch item {
        case .failure(let failure):
            c.discardInbox()
            c.finish()
            send(
                Answered(
                    connection: c.id, response: .error(failure.status, failure.message), closes: true, keepAliveHTTP10: false,
                    omitBody: false), on: c)
        case .request(let request):
            c.answering = true
            count { $0.requests += 1 }
            let handler = self.handler
            let shared = self.shared
            let id = c.id
            let submitted = workers.submit {
                let response = handler.respond(to: request)
                let answered = Answered(
                    connection: id, response: response, closes: ResponseWriter.closes(response, request: request),
                    keepAliveHTTP10: request.version == .http1_0, omitBody: request.method == .head)
                shared.completions.withLock { $0.append(answered) }
                let fd = shared.wakeFD.load(ordering: .acquiring)
                if fd >= 0 { Posix.wake(fd) }
            }
            if !submitted { close(c) }
        }
    }

    private func applyCompletions() {
        let done = shared.completions.withLock { list -> [Answered] in
            defer { list.removeAll(keepingCapacity: true) }
            return list
        }
        for answered in done {
            guard let c = connections[answered.connection] else { continue }
            c.answering = false
            send(answered, on: c)
            if connections[c.id] != nil { dispatch(c) }
        }
    }

    /// Queues a response (the last one says `Connection: close`), then writes what it can.
    private func send(_ answered: Answered, on c: HTTPConnection) {
        touched.append(c)
        if answered.closes {
            c.finish()
            c.discardInbox()
        }
        // Stopping (or a failure queued behind it) makes this the last response.
        let last = answered.closes || (!c.isReading && c.pendingCount == 0)
        let bytes = ResponseWriter.serialize(
            answered.response, date: currentDate(), closing: last, keepAliveHTTP10: answered.keepAliveHTTP10 && !last,
            omitBody: answered.omitBody)
        let code = ResponseWriter.isSendable(answered.response) ? answered.response.status.code : 500
        if c.unsentCount == 0 { c.lastSendProgress = clock.now }
        queue(bytes, on: c)
        let unsent = c.unsentCount
        count {
            $0.responses[code, default: 0] += 1
            $0.peakOutputBytes = max($0.peakOutputBytes, unsent)
        }
        flush(c)
        if connections[c.id] != nil { finishIfDone(c) }
    }

    /// Adds bytes to the connection's output, through its secure channel when it has one.
    private func queue(_ bytes: [UInt8], on c: HTTPConnection) {
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

    private func flush(_ c: HTTPConnection) {
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
                if !c.answering { dispatch(c) }  // below the output cap again, maybe
                return
            case .processed(let n):
                c.outputOffset += n
                c.lastSendProgress = clock.now
                if c.outputOffset >= 1 << 20 && c.outputOffset * 2 >= c.output.count {
                    c.output.removeFirst(c.outputOffset)  // a reader that never fully catches up
                    c.outputOffset = 0
                }
            }
        }
        c.output.removeAll(keepingCapacity: c.output.capacity <= 65536)
        c.outputOffset = 0
        if c.waitsOnClient { c.waitingSince = clock.now }
        finishIfDone(c)
        if !c.answering { dispatch(c) }  // the next request, or a 100 Continue, may wait for this
    }

    /// Closes a connection that is finishing once everything it read is answered and sent:
    /// shut down our side, then drain the peer briefly so unread bytes do not turn our last
    /// response into a reset.
    private func finishIfDone(_ c: HTTPConnection) {
        guard case .finishing = c.phase, !c.answering, c.pendingCount == 0, c.unsentCount == 0 else { return }
        Posix.shutdownWrite(c.fd)
        c.phase = .lingering(until: clock.now + Self.lingerTime)
        touched.append(c)
    }

    private func close(_ c: HTTPConnection) {
        guard connections.removeValue(forKey: c.id) != nil else { return }
        try? epoll?.remove(c.fd)  // closing the fd removes it anyway
        Posix.close(c.fd)
        if c.isRefusal {
            refusals -= 1
            return
        }
        let host = c.peer.host
        if let n = openPerAddress[host] { openPerAddress[host] = n > 1 ? n - 1 : nil }
        if c.requestsRead == 0 { awaitingFirstRequest -= 1 }
        let open = connections.count - refusals
        count { $0.open = open }
    }

    // MARK: deadlines and stopping

    private func sweep(_ now: ContinuousClock.Instant) {
        for c in Array(connections.values) {
            if case .lingering(let until) = c.phase {
                if now >= until { close(c) }
                continue
            }
            if c.unsentCount > 0 {
                if now - c.lastSendProgress >= configuration.sendTimeout {
                    count { $0.sendTimeouts += 1 }
                    close(c)  // it does not read: nothing more can reach it
                }
                continue
            }
            guard c.isReading, c.waitsOnClient else { continue }
            // The clocks run only while the server waits on the client.
            let since = max(c.partialSince ?? c.waitingSince, c.waitingSince)
            if c.parser.isReadingBody {
                let allowed =
                    configuration.bodyGracePeriod
                    + .milliseconds(Int64(c.parser.bodyReceived) * 1000 / Int64(configuration.minimumBodyRate))
                if now - since > allowed {
                    count { $0.slowBodies += 1 }
                    timeOut(c, "the body arrived slower than \(configuration.minimumBodyRate) bytes per second")
                }
            } else if c.parser.bufferedCount > 0 {
                if now - since >= configuration.headerTimeout {
                    count { $0.headerTimeouts += 1 }
                    timeOut(c, "the request head did not arrive within \(configuration.headerTimeout)")
                }
            } else if c.requestsRead == 0 {
                if now - c.acceptedAt >= configuration.headerTimeout {
                    count { $0.headerTimeouts += 1 }
                    close(c)  // nothing was ever sent: nothing to answer
                }
            } else if now - c.waitingSince >= configuration.idleTimeout {
                count { $0.idleClosed += 1 }
                close(c)
            }
        }
    }

    /// Answers 408 and closes: the client was too slow with its request.
    private func timeOut(_ c: HTTPConnection, _ message: String) {
        c.discardInbox()
        c.finish()
        queue(timeoutBytes(message), on: c)
        count { $0.responses[408, default: 0] += 1 }
        flush(c)
    }

    private func beginStop(_ now: ContinuousClock.Instant) {
        stopDeadline = now + configuration.stopGracePeriod
        if listening {
            try? epoll?.remove(listener)
            Posix.close(listener)
            listening = false
        }
        for c in Array(connections.values) {
            if c.isReading && c.waitsOnClient && c.partialSince == nil && c.parser.bufferedCount == 0 {
                close(c)  // idle between requests: nothing to answer or drain, so stopping need not wait on it
                continue
            }
            c.finish()
            touched.append(c)
            finishIfDone(c)
        }
    }
}
