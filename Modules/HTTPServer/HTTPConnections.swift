import ConnectionLoop
import SystemCalls
import Synchronization

/// The HTTP server's I/O loop.
typealias HTTPLoop = ConnectionLoop<HTTPConnections>

/// HTTP/1.1 on the connection loop, in four parts: `HTTPRequestDecoder` (requests parsed from
/// each connection's bytes), `HTTPResponder` (one at a time to a worker, `100 Continue` when a
/// body is wanted), `HTTPAdmission` (refusals, and a full server evicting the longest-waiting
/// connection) and `HTTPDeadlines` (heads, bodies, idle kept-alive connections and unread
/// responses; 408 where a request was in progress). Lives on the loop's I/O thread.
final class HTTPConnections: ConnectionProtocol {
    typealias State = HTTPConnectionState
    typealias Item = ParsedItem
    typealias Answer = Answered
    typealias Statistics = HTTPServerStatistics

    let decoder: HTTPRequestDecoder
    let responder: HTTPResponder
    let admission: HTTPAdmission
    let deadlines: HTTPDeadlines

    init(
        configuration: HTTPServerConfiguration, handler: any HTTPHandler, shared: LoopShared<Answered, HTTPServerStatistics>,
        secure: Bool
    ) {
        let context = HTTPContext(configuration: configuration, shared: shared, secure: secure)
        decoder = HTTPRequestDecoder(context)
        responder = HTTPResponder(context, handler: handler, decoder: decoder)
        admission = HTTPAdmission(context)
        deadlines = HTTPDeadlines(context)
    }

    /// The loop's limits, as this configuration sets them (idle time is this protocol's own clock).
    static func settings(_ configuration: HTTPServerConfiguration) -> ConnectionLoopSettings {
        ConnectionLoopSettings(
            maxConnections: configuration.maxConnections, maxConnectionsPerAddress: configuration.maxConnectionsPerAddress,
            maxPendingRequests: configuration.maxPipelinedRequests, maxOutputBytes: configuration.maxOutputBytes,
            idleTimeout: nil, pollInterval: .milliseconds(50), stopGracePeriod: configuration.stopGracePeriod)
    }
}

/// What the four parts share: the configuration, the counters, the `Date` header, and how many
/// open connections have not sent a whole request yet.
final class HTTPContext {
    let configuration: HTTPServerConfiguration
    let shared: LoopShared<Answered, HTTPServerStatistics>
    let secure: Bool
    /// Open connections (not refusals) that have not sent a whole request yet.
    var awaitingFirstRequest = 0
    /// The `Date` value, made once a second.
    private var date: (second: Int64, text: String) = (-1, "")

    init(configuration: HTTPServerConfiguration, shared: LoopShared<Answered, HTTPServerStatistics>, secure: Bool) {
        self.configuration = configuration
        self.shared = shared
        self.secure = secure
    }

    func currentDate() -> String {
        let second = Posix.wallClockMillis() / 1000
        if second != date.second { date = (second, HTTPDate.format(epochSeconds: second)) }
        return date.text
    }

    func count(_ change: (inout HTTPServerStatistics) -> Void) {
        shared.statistics.withLock { change(&$0) }
    }

    /// A closing error response the loop's thread decides on itself (no worker, no request to answer).
    func closingBytes(_ response: HTTPResponse) -> [UInt8] {
        ResponseWriter.serialize(response, date: currentDate(), closing: true, keepAliveHTTP10: false, omitBody: false)
    }

    /// Answers 408 and finishes `c`: the client was too slow with its request.
    func timeOut(_ c: HTTPConnection, _ message: String, _ loop: HTTPLoop) {
        c.discardInbox()
        c.finish()
        loop.queue(closingBytes(.error(.requestTimeout, message)), on: c)
        count { $0.responses[408, default: 0] += 1 }
        loop.flush(c)
    }
}
