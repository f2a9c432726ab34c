/// The server's settings; the defaults are the collector's.
public struct ATLPServerConfiguration: Sendable, Hashable {
    /// The address to listen on (numeric; `::1` for IPv6 loopback).
    public var host: String
    /// 0 picks a free port; `start()` returns it.
    public var port: UInt16
    /// Largest payload accepted, in bytes; announced in `WELCOME`.
    public var maxFrame: Int
    /// A connection with nothing to do and no bytes moved for this long is closed.
    public var idleTimeout: Duration
    /// Above this many open connections a new one gets `ERR too-many-connections` and is closed.
    public var maxConnections: Int
    /// Threads that run handler calls (they may block on a commit).
    public var workerThreads: Int
    /// How long `stop()` lets connections finish answering before closing them anyway.
    public var stopGracePeriod: Duration
    /// Requests read ahead per connection before reading from it pauses.
    public var maxPendingRequests: Int
    /// Unsent reply bytes per connection above which reading from it pauses.
    public var maxOutputBytes: Int
    /// Use epoll where available (Linux); false forces poll(2), whose cost grows with the
    /// number of open connections.
    public var useEpoll: Bool

    public init(
        host: String = "127.0.0.1", port: UInt16 = 7070, maxFrame: Int = 1 << 20, idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 4096, workerThreads: Int = 4, stopGracePeriod: Duration = .seconds(5),
        maxPendingRequests: Int = 16, maxOutputBytes: Int = 4 << 20, useEpoll: Bool = true
    ) {
        self.useEpoll = useEpoll
        self.host = host
        self.port = port
        self.maxFrame = maxFrame
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.workerThreads = workerThreads
        self.stopGracePeriod = stopGracePeriod
        self.maxPendingRequests = maxPendingRequests
        self.maxOutputBytes = maxOutputBytes
    }
}
