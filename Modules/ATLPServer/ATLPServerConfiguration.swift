/// The server's settings; the defaults are the collector's.
public struct ATLPServerConfiguration: Sendable, Hashable {
    /// The address to listen on (numeric; `::1` for IPv6 loopback).
    public var host: String
    /// 0 picks a free port; `start()` returns it.
    public var port: UInt16
    /// Largest payload accepted, in bytes; announced in `WELCOME`.
    public var maxFrame: Int
    /// Largest `SNAPSHOT` payload accepted (after `HELLO`), in bytes; announced in `WELCOME` as
    /// `maxSnapshot`. Never below `maxFrame`.
    public var maxSnapshotFrame: Int
    /// Bytes all connections together may hold for `SNAPSHOT` frames above `maxFrame`, read or
    /// being answered, each frame counted `largeFrameCopies` times (what answering it holds
    /// besides the frame); a connection whose frame would pass it waits (reading from it pauses).
    /// One frame always fits, so nothing stalls.
    public var snapshotMemoryBudget: Int

    /// How many times its size a large frame holds in memory while it is answered: the frame,
    /// its picture's base64 text parsed out of it, the picture decoded, and the store's copy of
    /// it (SQLite and libpq copy a bound value); snapshot-memory-bench checks the peak.
    public static let largeFrameCopies = 5
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
    /// Above this many open connections from one IP address a new one from it gets
    /// `ERR too-many-connections` and is closed.
    public var maxConnectionsPerAddress: Int
    /// A connection must have sent its whole `HELLO` this long after it was accepted, or it gets
    /// `ERR hello-required` and is closed.
    public var helloTimeout: Duration
    /// A frame in progress must arrive at this many bytes per second at least, after
    /// `frameGracePeriod`, counted only while the server waits on the client; else the connection is closed.
    public var minimumFrameRate: Int
    public var frameGracePeriod: Duration
    /// After an `unauthorized` from an IP address, its next `HELLO` waits this long; each further
    /// failure doubles the wait, up to `maxUnauthorizedDelay`. Forgotten 10 minutes after the last failure.
    public var unauthorizedDelay: Duration
    public var maxUnauthorizedDelay: Duration
    /// At most this many open connections may still wait for their `HELLO` (nil: half of
    /// `maxConnections`): over it, the oldest of them is closed to make room for the new one, so
    /// clients that complete a `HELLO` keep room however many addresses trickle theirs.
    public var maxConnectionsBeforeHello: Int?

    public init(
        host: String = "127.0.0.1", port: UInt16 = 7070, maxFrame: Int = 1 << 20, maxSnapshotFrame: Int = 16 << 20,
        snapshotMemoryBudget: Int = 64 << 20, idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 4096, workerThreads: Int = 4, stopGracePeriod: Duration = .seconds(5),
        maxPendingRequests: Int = 16, maxOutputBytes: Int = 4 << 20, useEpoll: Bool = true,
        maxConnectionsPerAddress: Int = 256, helloTimeout: Duration = .seconds(10), minimumFrameRate: Int = 1024,
        frameGracePeriod: Duration = .seconds(10), unauthorizedDelay: Duration = .milliseconds(250),
        maxUnauthorizedDelay: Duration = .seconds(8), maxConnectionsBeforeHello: Int? = nil
    ) {
        self.maxConnectionsBeforeHello = maxConnectionsBeforeHello
        self.useEpoll = useEpoll
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.helloTimeout = helloTimeout
        self.minimumFrameRate = max(1, minimumFrameRate)
        self.frameGracePeriod = frameGracePeriod
        self.unauthorizedDelay = unauthorizedDelay
        self.maxUnauthorizedDelay = maxUnauthorizedDelay
        self.host = host
        self.port = port
        self.maxFrame = maxFrame
        self.maxSnapshotFrame = max(maxFrame, maxSnapshotFrame)
        self.snapshotMemoryBudget = snapshotMemoryBudget
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.workerThreads = workerThreads
        self.stopGracePeriod = stopGracePeriod
        self.maxPendingRequests = maxPendingRequests
        self.maxOutputBytes = maxOutputBytes
    }

    /// `maxConnectionsBeforeHello`, or half of `maxConnections` (at least 1).
    var connectionsBeforeHelloLimit: Int { max(1, maxConnectionsBeforeHello ?? maxConnections / 2) }
}
