/// The HTTP server's settings. The defaults are the studio's; docs/http-server.md says why.
public struct HTTPServerConfiguration: Sendable, Hashable {
    /// The address to listen on (numeric; `::1` for IPv6 loopback).
    public var host: String
    /// 0 picks a free port; `start()` returns it.
    public var port: UInt16
    /// Longest request line (method, target, version); longer: 414 (or 501 for a long method).
    public var maxRequestLineBytes: Int
    /// Largest request head (request line and header fields with their line ends); larger: 431.
    public var maxHeaderBytes: Int
    /// Most header fields in one request; more: 431.
    public var maxHeaderFields: Int
    /// Largest body (`Content-Length`); larger: 413 at once, before any of it is read.
    public var maxBodyBytes: Int
    /// Above this many open connections a new one first evicts the longest-waiting connection
    /// without a request in progress; when there is none, it gets 503 and is closed. At most
    /// half of them may be waiting for their first request (over it, the oldest such is evicted).
    public var maxConnections: Int
    /// Open connections from one IP address; above it a new one from there gets 503.
    public var maxConnectionsPerAddress: Int
    /// A request head must arrive whole this long after its first byte (after acceptance for a
    /// connection's first request); else 408 and close (slowloris).
    public var headerTimeout: Duration
    /// A kept-alive connection with no request in progress is closed after this long.
    public var idleTimeout: Duration
    /// A body in progress must arrive at this many bytes per second at least, after
    /// `bodyGracePeriod`, counted only while the server waits on the client; else 408 and close.
    public var minimumBodyRate: Int
    public var bodyGracePeriod: Duration
    /// Unsent response bytes that have not moved for this long (a client that does not read)
    /// close the connection.
    public var sendTimeout: Duration
    /// Complete requests read ahead per connection (pipelining) before reading from it pauses.
    public var maxPipelinedRequests: Int
    /// Unsent response bytes per connection above which reading from it pauses.
    public var maxOutputBytes: Int
    /// Threads that run handler calls (handlers may block).
    public var workerThreads: Int
    /// How long `stop()` lets connections finish answering before closing them anyway.
    public var stopGracePeriod: Duration

    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, maxRequestLineBytes: Int = 8192, maxHeaderBytes: Int = 16384,
        maxHeaderFields: Int = 100, maxBodyBytes: Int = 1 << 20, maxConnections: Int = 1024,
        maxConnectionsPerAddress: Int = 128, headerTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(60),
        minimumBodyRate: Int = 1024, bodyGracePeriod: Duration = .seconds(10), sendTimeout: Duration = .seconds(30),
        maxPipelinedRequests: Int = 16, maxOutputBytes: Int = 4 << 20, workerThreads: Int = 4,
        stopGracePeriod: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.maxRequestLineBytes = max(64, maxRequestLineBytes)
        self.maxHeaderBytes = max(self.maxRequestLineBytes, maxHeaderBytes)
        self.maxHeaderFields = max(1, maxHeaderFields)
        self.maxBodyBytes = max(0, maxBodyBytes)
        self.maxConnections = max(1, maxConnections)
        self.maxConnectionsPerAddress = max(1, maxConnectionsPerAddress)
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.minimumBodyRate = max(1, minimumBodyRate)
        self.bodyGracePeriod = bodyGracePeriod
        self.sendTimeout = sendTimeout
        self.maxPipelinedRequests = max(1, maxPipelinedRequests)
        self.maxOutputBytes = max(1, maxOutputBytes)
        self.workerThreads = max(1, workerThreads)
        self.stopGracePeriod = stopGracePeriod
    }
}

/// Counters of a running server, for logs and tests.
public struct HTTPServerStatistics: Sendable, Hashable {
    public var open = 0
    public var accepted = 0
    /// Connections turned away with 503: full with none to evict, or too many from one address.
    public var refused = 0
    /// Waiting connections closed to make room for a new one when full.
    public var evicted = 0
    /// Requests handed to the handler.
    public var requests = 0
    /// Responses sent, by status code (the server's own error responses included).
    public var responses: [Int: Int] = [:]
    /// Connections closed for a request head not finished within `headerTimeout`.
    public var headerTimeouts = 0
    /// Connections closed for a body slower than `minimumBodyRate`.
    public var slowBodies = 0
    /// Kept-alive connections closed after `idleTimeout`.
    public var idleClosed = 0
    /// Connections closed because their client did not read the responses within `sendTimeout`.
    public var sendTimeouts = 0
    /// Clients speaking plain HTTP to the HTTPS port (answered 400 in plain text).
    public var protocolMismatches = 0
    /// The most requests read ahead on one connection at any time (bounded by `maxPipelinedRequests`).
    public var peakPipelined = 0
    /// The most unsent response bytes on one connection at any time.
    public var peakOutputBytes = 0
}
