/// What a shipper has done so far.
public struct ShipperStatistics: Sendable, Hashable {
    /// Events taken into the spool.
    public var enqueued = 0
    /// Events refused by `enqueue` (spool full, too large, closed); the caller got the error.
    public var refused = 0
    public var acknowledgedBatches = 0
    public var acknowledgedEvents = 0
    /// Sums of the collector's ACK counts.
    public var stored = 0
    public var duplicates = 0
    public var rejected = 0
    /// Events moved to `undeliverable/` because the collector refuses their batch for good.
    public var undeliverable = 0
    /// Events in the spool, not yet acknowledged.
    public var pendingEvents = 0
    /// Successful connections (HELLO answered by WELCOME).
    public var connections = 0
    /// The last delivery problem, for logs.
    public var lastError: String?
    /// Delivery stopped for good (e.g. `unauthorized`); events stay in the spool.
    public var halted = false
}
