import ConnectionLoop
import SystemCalls

/// A connection of the HTTP server, as its I/O thread sees it.
typealias HTTPConnection = Connection<HTTPConnections>

/// What the HTTP server keeps per connection, beside what the connection loop keeps.
struct HTTPConnectionState {
    var parser: RequestParser
    /// Requests read from this connection so far.
    var requestsRead = 0
    /// When the head or the body in progress began arriving; nil when none is.
    var partialSince: ContinuousClock.Instant?

    init(peer: SocketAddress, limits: HTTPServerConfiguration, secure: Bool) {
        parser = RequestParser(limits: limits, peer: peer, isSecure: secure)
    }
}

/// A handler's response on its way back to the I/O thread, with what sending it needs to know.
struct Answered: Sendable {
    var response: HTTPResponse
    var closes: Bool
    var keepAliveHTTP10: Bool
    var omitBody: Bool
}
