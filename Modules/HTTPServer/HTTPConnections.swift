import ConnectionLoop
import SystemCalls

/// The HTTP server's I/O loop.
typealias HTTPLoop = ConnectionLoop<HTTPConnections>

/// HTTP/1.1 on the connection loop: requests parsed from each connection's bytes, one at a time
/// handed to a worker, `100 Continue` when a body is wanted, deadlines for heads, bodies, idle
/// kept-alive connections and unread responses (408 where a request was in progress), and a
/// full server evicting the longest-waiting connection. Lives on the loop's I/O thread.
final class HTTPConnections: ConnectionProtocol {
    typealias State = HTTPConnectionState
    typealias Item = ParsedItem
    typealias Answer = Answered
    typealias Statistics = HTTPServerStatistics

    let configuration: HTTPServerConfiguration
    let handler: any HTTPHandler
    let shared: LoopShared<Answered, HTTPServerStatistics>
    let secure: Bool
    /// Open connections (not refusals) that have not sent a whole request yet.
    var awaitingFirstRequest = 0
    /// The `Date` value, made once a second.
    var date: (second: Int64, text: String) = (-1, "")

    init(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler, shared: LoopShared<Answered, HTTPServerStatistics>,
        secure: Bool
    ) {
        self.configuration = configuration
        self.handler = handler
        self.shared = shared
        self.secure = secure
    }

    /// The loop's limits, as this configuration sets them (idle time is this protocol's own clock).
    static func settings(_ configuration: HTTPServerConfiguration) -> ConnectionLoopSettings {
        ConnectionLoopSettings(
            maxConnections: configuration.maxConnections, maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            maxPendingRequests: configuration.maxPipelinedRequests, maxOutputBytes: configuration.maxOutputBytes,
            idleTimeout: nil, pollInterval: .milliseconds(50), stopGracePeriod: configuration.stopGracePeriod)
    }

    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> HTTPConnectionState {
        HTTPConnectionState(peer: peer, limits: configuration, secure: secure)
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

    /// Half the slots at most wait for a first request: slow heads evict each other and leave the
    /// rest to connections that have been served (kept alive) or are being served. A full server
    /// evicts the longest-waiting connection for the new one.
    func makeRoom(full: Bool, crowded: Bool, loop: HTTPLoop) -> Bool {
        if !crowded && awaitingFirstRequest >= max(1, configuration.maxConnections / 2),
            let victim = longestWaiting(beforeFirstRequest: true, loop)
        {
            evict(victim, loop)
            return false
        } else if full && !crowded, let victim = longestWaiting(beforeFirstRequest: false, loop) {
            evict(victim, loop)
            return false
        }
        return full
    }

    func refusal(_ cause: RefusalCause) -> [UInt8] {
        let reason: String
        switch cause {
        case .outOfDescriptors: reason = "the server is out of file descriptors; retry later"
        case .limit(_, crowded: true, _): reason = "too many connections from your address; close some or retry later"
        case .limit(_, crowded: false, _): reason = "the server has its maximum of connections open; retry later"
        }
        var response = HTTPResponse.error(.serviceUnavailable, reason)
        response.headers.set("Retry-After", "1")
        return ResponseWriter.serialize(response, date: currentDate(), closing: true, keepAliveHTTP10: false, omitBody: false)
    }

    func countRefusal() {
        count {
            $0.refused += 1
            $0.responses[503, default: 0] += 1
        }
    }

    func opened(_ c: HTTPConnection, loop: HTTPLoop) {
        awaitingFirstRequest += 1
        let open = loop.openCount
        count {
            $0.accepted += 1
            $0.open = open
        }
    }

    /// The connection that has waited longest on its client with no request being answered:
    /// an idle kept-alive one, a slow head or a slow body. nil when every one is busy.
    private func longestWaiting(beforeFirstRequest: Bool, _ loop: HTTPLoop) -> HTTPConnection? {
        var best: HTTPConnection?
        for c in loop.connections.values where !c.isRefusal && c.isReading && c.waitsOnClient {
            if beforeFirstRequest && c.state.requestsRead > 0 { continue }
            let since = c.state.partialSince.map { max($0, c.waitingSince) } ?? c.waitingSince
            let bestSince = best.map { b in b.state.partialSince.map { max($0, b.waitingSince) } ?? b.waitingSince }
            if bestSince.map({ since < $0 }) ?? true { best = c }
        }
        return best
    }

    /// Closes a waiting connection to make room: a 408 when it was sending a request, silently
    /// when it was idle (as a kept-alive connection may be closed at any time).
    private func evict(_ c: HTTPConnection, _ loop: HTTPLoop) {
        if c.state.partialSince != nil {
            loop.queue(timeoutBytes("the server needed room and this request was the slowest"), on: c)
            if c.unsentCount > 0 {
                _ = try? c.output.withUnsafeBytes { raw in try Posix.send(c.fd, UnsafeRawBufferPointer(rebasing: raw[c.outputOffset...])) }
            }
            count { $0.responses[408, default: 0] += 1 }
        }
        count { $0.evicted += 1 }
        loop.close(c)
    }

    private func timeoutBytes(_ message: String) -> [UInt8] {
        ResponseWriter.serialize(
            .error(.requestTimeout, message), date: currentDate(), closing: true, keepAliveHTTP10: false, omitBody: false)
    }

    // MARK: reading

    /// Room for one whole request beyond what is buffered.
    func hasRoom(_ c: HTTPConnection) -> Bool {
        c.state.parser.bufferedCount <= configuration.maxHeaderBytes + configuration.maxBodyBytes
    }

    /// Buffers the bytes and cuts the requests they complete.
    func received(_ bytes: UnsafeRawBufferPointer, on c: HTTPConnection, loop: HTTPLoop) {
        c.state.parser.append(bytes)
        extractRequests(c, loop)
    }

    /// A plain HTTP request (a capital letter where a TLS record starts with 0x16) on the HTTPS
    /// port: told so in plain HTTP, which its client can read, then closed.
    func refusesFirstByte(_ byte: UInt8, on c: HTTPConnection, loop: HTTPLoop) -> Bool {
        guard c.channel != nil, (65...90).contains(byte) else { return false }
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
        loop.flush(c)
        return true
    }

    /// Cuts buffered bytes into requests, up to `maxPipelinedRequests` queued: the rest waits in
    /// the parser until the queue drains.
    private func extractRequests(_ c: HTTPConnection, _ loop: HTTPLoop) {
        let now = loop.clock.now
        var parsed = 0
        var completed = false
        while c.isReading, c.pendingCount < configuration.maxPipelinedRequests, let item = c.state.parser.next() {
            c.enqueue(item)
            parsed += 1
            completed = true
            if case .failure = item { c.finish() }  // nothing after it is read
        }
        if c.state.parser.bufferedCount == 0 && !c.state.parser.isReadingBody {
            c.state.partialSince = nil
        } else if completed || c.state.partialSince == nil {
            c.state.partialSince = now
        }
        if parsed > 0 {
            if c.state.requestsRead == 0 { awaitingFirstRequest -= 1 }
            c.state.requestsRead += parsed
            let pending = c.pendingCount
            count { $0.peakPipelined = max($0.peakPipelined, pending) }
        }
    }

    // MARK: answering

    /// Answers the next request if none is being answered.
    func advance(_ c: HTTPConnection, loop: HTTPLoop) {
        // One request at a time, and none while the client has not read enough of the answers:
        // a client that does not read costs at most `maxOutputBytes` and one response.
        guard !c.answering, loop.connections[c.id] === c, c.unsentCount < configuration.maxOutputBytes else { return }
        extractRequests(c, loop)
        guard let item = c.popItem() else {
            if c.state.parser.wantsContinue && c.isReading && c.unsentCount == 0 {
                // The body is wanted and everything before it is answered: ask for it.
                c.state.parser.continueSent()
                loop.queue(ResponseWriter.continueBytes, on: c)
                count { $0.responses[100, default: 0] += 1 }
                loop.flush(c)
            }
            return
        }
        loop.touch(c)
        switch item {
        case .failure(let failure):
            c.discardInbox()
            c.finish()
            send(
                Answered(response: .error(failure.status, failure.message), closes: true, keepAliveHTTP10: false, omitBody: false),
                on: c, loop)
        case .request(let request):
            count { $0.requests += 1 }
            let handler = self.handler
            loop.answer(c) {
                let response = handler.respond(to: request)
                return Answered(
                    response: response, closes: ResponseWriter.closes(response, request: request),
                    keepAliveHTTP10: request.version == .http1_0, omitBody: request.method == .head)
            }
        }
    }

    func answered(_ answered: Answered, on c: HTTPConnection, loop: HTTPLoop) {
        send(answered, on: c, loop)
        if loop.connections[c.id] != nil { advance(c, loop: loop) }
    }

    /// Queues a response (the last one says `Connection: close`), then writes what it can.
    private func send(_ answered: Answered, on c: HTTPConnection, _ loop: HTTPLoop) {
        loop.touch(c)
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
        if c.unsentCount == 0 { c.lastSendProgress = loop.clock.now }
        loop.queue(bytes, on: c)
        let unsent = c.unsentCount
        count {
            $0.responses[code, default: 0] += 1
            $0.peakOutputBytes = max($0.peakOutputBytes, unsent)
        }
        loop.flush(c)
        if loop.connections[c.id] != nil { loop.finishIfDone(c) }
    }

    func closed(_ c: HTTPConnection, loop: HTTPLoop) {
        if c.state.requestsRead == 0 { awaitingFirstRequest -= 1 }
        let open = loop.openCount
        count { $0.open = open }
    }

    // MARK: deadlines and stopping

    func sweep(_ c: HTTPConnection, now: ContinuousClock.Instant, loop: HTTPLoop) {
        if c.unsentCount > 0 {
            if now - c.lastSendProgress >= configuration.sendTimeout {
                count { $0.sendTimeouts += 1 }
                loop.close(c)  // it does not read: nothing more can reach it
            }
            return
        }
        guard c.isReading, c.waitsOnClient else { return }
        // The clocks run only while the server waits on the client.
        let since = max(c.state.partialSince ?? c.waitingSince, c.waitingSince)
        if c.state.parser.isReadingBody {
            let allowed =
                configuration.bodyGracePeriod
                + .milliseconds(Int64(c.state.parser.bodyReceived) * 1000 / Int64(configuration.minimumBodyRate))
            if now - since > allowed {
                count { $0.slowBodies += 1 }
                timeOut(c, "the body arrived slower than \(configuration.minimumBodyRate) bytes per second", loop)
            }
        } else if c.state.parser.bufferedCount > 0 {
            if now - since >= configuration.headerTimeout {
                count { $0.headerTimeouts += 1 }
                timeOut(c, "the request head did not arrive within \(configuration.headerTimeout)", loop)
            }
        } else if c.state.requestsRead == 0 {
            if now - c.acceptedAt >= configuration.headerTimeout {
                count { $0.headerTimeouts += 1 }
                loop.close(c)  // nothing was ever sent: nothing to answer
            }
        } else if now - c.waitingSince >= configuration.idleTimeout {
            count { $0.idleClosed += 1 }
            loop.close(c)
        }
    }

    /// Answers 408 and closes: the client was too slow with its request.
    private func timeOut(_ c: HTTPConnection, _ message: String, _ loop: HTTPLoop) {
        c.discardInbox()
        c.finish()
        loop.queue(timeoutBytes(message), on: c)
        count { $0.responses[408, default: 0] += 1 }
        loop.flush(c)
    }

    /// Idle between requests: nothing to answer or drain, so stopping need not wait on it.
    func closesAtStop(_ c: HTTPConnection) -> Bool {
        c.isReading && c.waitsOnClient && c.state.partialSince == nil && c.state.parser.bufferedCount == 0
    }
}
