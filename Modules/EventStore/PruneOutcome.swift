/// What a `CollectorStore.prune` deleted.
public struct PruneOutcome: Sendable, Hashable {
    public var events: Int
    public var rejected: Int
    public var batches: Int
    /// Snapshots captured before the cut (docs/studio.md).
    public var snapshots: Int
    /// Transactions it took (each deleting at most the chunk size from one table).
    public var transactions: Int

    public init(events: Int = 0, rejected: Int = 0, batches: Int = 0, snapshots: Int = 0, transactions: Int = 0) {
        self.events = events
        self.rejected = rejected
        self.batches = batches
        self.snapshots = snapshots
        self.transactions = transactions
    }

    /// Counts `n` rows deleted from `table` (one of `tables`) in one more transaction.
    public mutating func add(_ n: Int, from table: String) {
        transactions += 1
        switch table {
        case "events": events += n
        case "rejected": rejected += n
        case "snapshots": snapshots += n
        default: batches += n
        }
    }

    /// The tables `prune` deletes from, with the time column each is pruned by: events by their
    /// corrected time, snapshots by when they were captured, the others by when they
    /// were received.
    public static let tables: [(table: String, time: String)] = [
        ("events", "corrected_ts"), ("rejected", "received_at"), ("batches", "received_at"),
        ("snapshots", "captured_at"),
    ]
}
