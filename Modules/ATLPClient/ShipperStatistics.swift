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
    /// Events moved to `undeliverable/`: damaged on disk, refused by the collector, or alone too
    /// large for a frame. The others of their batch are delivered.
    public var undeliverable = 0
    /// What the last events set aside were, where they went and why (names the file and count).
    public var lastSetAside: String?
    /// Events dropped unsent by `discardUnsent()` (consent withdrawn).
    public var discarded = 0
    /// Events in the spool, not yet acknowledged.
    public var pendingEvents = 0
    /// The collector of the last successful connection (`host:port`).
    public var collector: String?
    /// Successful connections (HELLO answered by WELCOME).
    public var connections = 0
    /// The last delivery problem, for logs.
    public var lastError: String?
    /// `flush` calls (each cuts the open batch and waits for the acknowledgements).
    public var flushes = 0
    /// Delivery stopped for good (e.g. `unauthorized`); events stay in the spool.
    public var halted = false

    /// Nothing done yet.
    public init() {}
}

extension ShipperStatistics {
    /// Counts `count` events of `batch` set aside in `file`, and says so in `lastSetAside`.
    mutating func noteSetAside(_ count: Int, of batch: SpooledBatch, in file: String, why: String) {
        undeliverable += count
        lastSetAside =
            "\(count) of \(batch.events) \(batch.events == 1 ? "event" : "events") of \(batch.fileName) set aside in \(file): \(why)"
    }
}
