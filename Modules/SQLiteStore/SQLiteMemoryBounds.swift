/// The memory a writable SQLite store holds for work not done yet, in bytes of the batches it
/// keeps (`PendingBatch.heldBytes`: the events as received and their records), so that the
/// store's memory is bounded whatever the size of each event. The defaults are `StoreTuning`'s;
/// a test gives its own (`SQLiteEventStore(path:options:memory:)`).
public struct SQLiteMemoryBounds: Sendable, Hashable {
    /// Batches logged (acknowledged) and not yet stored in `events`, at most: past it an append
    /// stores waiting batches itself before it logs its own, so its `ACK` waits for storing.
    public var waitingBytes: Int
    /// Batches stored and not yet applied to the derived data that each rollup worker holds in
    /// memory (`RollupHandoff`), at most: past it a drain's batches are not handed to that worker,
    /// which reads their rows back from `events`. 0 hands nothing (every row read back). The two
    /// workers share the batches, so together they hold at most twice this.
    public var handoffBytes: Int

    /// The store's own bounds (`StoreTuning.maxWaitingBytes`, `StoreTuning.rollupHandoffBytes`).
    public init() {
        self.init(waitingBytes: StoreTuning.maxWaitingBytes, handoffBytes: StoreTuning.rollupHandoffBytes)
    }

    public init(waitingBytes: Int, handoffBytes: Int) {
        self.waitingBytes = waitingBytes
        self.handoffBytes = handoffBytes
    }
}
