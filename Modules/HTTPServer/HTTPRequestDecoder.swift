import ConnectionLoop
import SystemCalls

/// Bytes in: each connection's parser, and the requests it completes, up to `maxPipelinedRequests`
/// queued (the rest waits in the parser until the queue drains).
final class HTTPRequestDecoder: ConnectionDecoder {
    typealias P = HTTPConnections
    let context: HTTPContext

    init(_ context: HTTPContext) { self.context = context }

    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> HTTPConnectionState {
        HTTPConnectionState(peer: peer, limits: context.configuration, secure: context.secure)
    }

    /// Room for one whole request beyond what is buffered.
    func hasRoom(_ c: HTTPConnection) -> Bool {
        c.state.parser.bufferedCount <= context.configuration.maxHeaderBytes + context.configuration.maxBodyBytes
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
        loop.queue(context.closingBytes(.error(.badRequest, "this port speaks HTTPS; use an https:// address")), on: c)
        context.count {
            $0.responses[400, default: 0] += 1
            $0.protocolMismatches += 1
        }
        loop.flush(c)
        return true
    }

    /// Cuts buffered bytes into requests; a failure stops reading (nothing after it is read).
    func extractRequests(_ c: HTTPConnection, _ loop: HTTPLoop) {
        let now = loop.clock.now
        var parsed = 0
        var completed = false
        while c.isReading, c.pendingCount < context.configuration.maxPipelinedRequests, let item = c.state.parser.next() {
            c.enqueue(item)
            parsed += 1
            completed = true
            if case .failure = item { c.finish() }
        }
        if c.state.parser.bufferedCount == 0 && !c.state.parser.isReadingBody {
            c.state.partialSince = nil
        } else if completed || c.state.partialSince == nil {
            c.state.partialSince = now
        }
        if parsed > 0 {
            if c.state.requestsRead == 0 { context.awaitingFirstRequest -= 1 }
            c.state.requestsRead += parsed
            let pending = c.pendingCount
            context.count { $0.peakPipelined = max($0.peakPipelined, pending) }
        }
    }
}
