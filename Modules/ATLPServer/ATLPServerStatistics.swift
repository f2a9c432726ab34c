import ATLPWire

/// Counters of a running server, for logs and tests.
public struct ATLPServerStatistics: Sendable, Hashable {
    public var open = 0
    public var accepted = 0
    /// Connections turned away because `maxConnections` were open.
    public var refused = 0
    /// Connections closed for being idle.
    public var idleClosed = 0
    public var framesReceived = 0
    /// ERR frames sent, by code.
    public var errors: [ATLPErrorCode: Int] = [:]
}
