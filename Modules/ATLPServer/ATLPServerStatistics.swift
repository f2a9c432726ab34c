public import ATLPWire

/// Counters of a running server, for logs and tests.
public struct ATLPServerStatistics: Sendable, Hashable {
    public var open = 0
    public var accepted = 0
    /// Connections turned away: `maxConnections` open, `maxConnectionsPerAddress` open from
    /// the same address, or the process out of file descriptors.
    public var refused = 0
    /// Connections closed for being idle.
    public var idleClosed = 0
    /// Connections closed for not finishing `HELLO` within `helloTimeout`.
    public var helloTimedOut = 0
    /// Connections closed for sending a frame slower than `minimumFrameRate`.
    public var slowFramesClosed = 0
    /// Connections closed while waiting for `HELLO`, to make room (`maxConnectionsBeforeHello`).
    public var closedBeforeHello = 0
    /// `HELLO`s held back because their address recently failed authentication.
    public var throttledHellos = 0
    public var framesReceived = 0
    /// The most requests read ahead on one connection at any time (bounded by `maxPendingRequests`).
    public var peakPendingRequests = 0
    /// The most answer bytes one connection held unsent at any time (bounded by
    /// `maxOutputBytes` plus one answer: a connection over it gets nothing more answered).
    public var peakUnsentBytes = 0
    /// Large `SNAPSHOT` frames (above `maxFrame`) admitted, and how many times one had to wait
    /// for room in `snapshotMemoryBudget`; the most bytes such frames held at once.
    public var largeFramesAdmitted = 0
    public var largeFrameWaits = 0
    public var peakLargeFrameBytes = 0
    /// ERR frames sent, by code.
    public var errors: [ATLPErrorCode: Int] = [:]
}
