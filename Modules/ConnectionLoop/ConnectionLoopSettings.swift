/// The limits a `ConnectionLoop` enforces for every protocol, as the protocol configures them.
package struct ConnectionLoopSettings: Sendable {
    /// Open connections (refusals not counted); above it a new one is refused (`RefusalCause.limit`).
    package var maxConnections: Int
    /// Open connections from one IP address; above it a new one from there is refused.
    package var maxConnectionsPerAddress: Int
    /// Requests read ahead per connection before reading from it pauses.
    package var maxPendingRequests: Int
    /// Unsent output per connection at or above which reading from it pauses and no request is
    /// handed on (a client that does not read its answers holds at most this much of them).
    package var maxOutputBytes: Int
    /// A connection with nothing queued or being answered and no byte moved either way for this
    /// long is closed; nil when the protocol keeps its own idle clock.
    package var idleTimeout: Duration?
    /// The longest wait for readiness: how often deadlines are looked at.
    package var pollInterval: Duration
    /// How long stopping lets connections finish answering before closing them anyway.
    package var stopGracePeriod: Duration
    /// After our side shuts down, how long the peer's bytes are read and discarded at most, so
    /// unread bytes do not turn the last answer into a reset.
    package var lingerTime: Duration
    /// Refused connections being answered at once; past it a refusal is closed without lingering.
    package var maxRefusals: Int
    /// Use epoll where available (Linux); false forces poll(2).
    package var useEpoll: Bool

    package init(
        maxConnections: Int, maxConnectionsPerAddress: Int, maxPendingRequests: Int, maxOutputBytes: Int,
        idleTimeout: Duration?, pollInterval: Duration, stopGracePeriod: Duration, lingerTime: Duration = .seconds(2),
        maxRefusals: Int = 64, useEpoll: Bool = true
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxPendingRequests = maxPendingRequests
        self.maxOutputBytes = maxOutputBytes
        self.idleTimeout = idleTimeout
        self.pollInterval = pollInterval
        self.stopGracePeriod = stopGracePeriod
        self.lingerTime = lingerTime
        self.maxRefusals = maxRefusals
        self.useEpoll = useEpoll
    }
}
