import ConnectionLoop

/// Who may connect. Half the slots at most wait for a first request: slow heads evict each other
/// and leave the rest to connections that have been served (kept alive) or are being served. A
/// full server evicts the longest-waiting connection for the new one.
final class HTTPAdmission: ConnectionAdmission {
    typealias P = HTTPConnections
    let context: HTTPContext

    init(_ context: HTTPContext) { self.context = context }

    func makeRoom(full: Bool, crowded: Bool, loop: HTTPLoop) -> Bool {
        if !crowded && context.awaitingFirstRequest >= max(1, context.configuration.maxConnections / 2),
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
        return context.closingBytes(response)
    }

    func countRefusal() {
        context.count {
            $0.refused += 1
            $0.responses[503, default: 0] += 1
        }
    }

    func opened(_ c: HTTPConnection, loop: HTTPLoop) {
        context.awaitingFirstRequest += 1
        let open = loop.openCount
        context.count {
            $0.accepted += 1
            $0.open = open
        }
    }

    func closed(_ c: HTTPConnection, loop: HTTPLoop) {
        if c.state.requestsRead == 0 { context.awaitingFirstRequest -= 1 }
        let open = loop.openCount
        context.count { $0.open = open }
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
        context.count { $0.evicted += 1 }
        guard c.state.partialSince != nil else { return loop.close(c) }
        context.count { $0.responses[408, default: 0] += 1 }
        loop.close(c, after: context.closingBytes(.error(.requestTimeout, "the server needed room and this request was the slowest")))
    }
}
