/// The SQLite store's tuning constants, in one place, each with the invariant it keeps. None
/// depends on the machine: each bounds a time, a memory or a transaction's size.
enum StoreTuning {
    // MARK: the ingest journal and `events`

    /// How often the `ingest-store` thread stores what waits in the ingest journal, at most (from
    /// the start of one round to the next), unless its last transaction came full (more wait: the
    /// next follows at once). Keeps: a logged batch waits at most this long for a round to start.
    static let storePeriod = Duration.milliseconds(100)

    /// Age of the oldest batch waiting in the journal beyond which an append stores waiting
    /// batches itself before logging its own. Keeps `events` within 1 s of every `ACK` at any
    /// rate: the `ACK`s slow to the rate at which `events` is written, so what waits is never
    /// more than this much of storing's work, and the `ingest-store` thread or the next appends
    /// store it within another such span.
    static let maxStoreLag = Duration.milliseconds(250)

    /// Bytes of batches waiting (`PendingBatch.heldBytes`) beyond which an append stores waiting
    /// batches itself before logging its own, whatever their age (the default of
    /// `SQLiteMemoryBounds.waitingBytes`). Keeps the backlog's memory bounded whatever the size of
    /// the events, while holding more than `maxStoreLag` of appends at 150,000 events/s of a few
    /// hundred bytes each.
    static let maxWaitingBytes = 128 << 20

    /// Batches per transaction of `events`, at most. Keeps a read that stores what waits
    /// (`ingestCurrent`) from holding the connection for longer than one such transaction.
    static let batchesPerStore = 64

    // MARK: derived data (the rollups)

    /// Events per rollup transaction, at most. Keeps the memory of one transaction's events
    /// (`RollupEvent`s, a few hundred bytes each) bounded.
    static let rollupChunk = 100_000

    /// Bytes of batches stored and not yet applied that each rollup worker's hand-off
    /// (`RollupHandoff`) holds in memory, at most (the default of
    /// `SQLiteMemoryBounds.handoffBytes`); past it a drain's batches are not handed off and the
    /// worker reads them back from `events`. Keeps the hand-off's memory bounded whatever the
    /// size of the events (the two workers' queues share the batches), while holding more than a
    /// round (`rollupPeriod`) of storing at 150,000 events/s of a few hundred bytes each.
    static let rollupHandoffBytes = 128 << 20

    /// How often a round of rollup transactions starts, at most, unless the last came full. Each
    /// key changed in a round costs one upsert whatever its events, so a longer period costs
    /// fewer upserts per event; keeps the rollups' lag behind `events` at about this plus one
    /// round's work (reports never wait for it: they apply what is left themselves).
    static let rollupPeriod = Duration.seconds(1)

    /// Entries per generation of each map a rollup worker remembers across chunks
    /// (`RollupMemory`: the numbers of texts, the distinct ids stored, the last enter of each
    /// sequence and the last run of each actor and view), two generations each. Keeps the
    /// workers' memory flat (a few MiB per map, whatever the number of keys that pass) while
    /// the last this-many keys set in each map stay known to the next chunk.
    static let rollupMemoryEntries = 65_536

    /// How long a read-only reader beside a running collector waits for the watermark to move
    /// before it takes the rollups for unkept and reads the events. Keeps such a reader on the
    /// rollups: three rounds (`rollupPeriod`), so a round's pause never passes for a stop. (With
    /// no collector running, one that owns the ingest journal, it reads the events at once.)
    static let watermarkStallBound = rollupPeriod * 3

    /// The nice value of the derived data's threads (the rollup workers, the filter build). Keeps
    /// the appends (whose `ACK`s agents wait for) and the `ingest-store` thread (which holds the
    /// lock the appends take to store, so it runs at their priority) ahead when they compete for
    /// the processor; an idle processor runs these threads at full speed.
    static let backgroundNice: Int32 = 5

    // MARK: stopping

    /// How long `close` waits for each background thread (storing, the filter build, the rollup
    /// workers) to finish the transaction it is in. Keeps a close from running beside them; a
    /// thread still busy past it (a disk that stalls) is left as a crash would leave it: what it
    /// had not committed is in the journal, or behind the rollups' watermark.
    static let workerStopGrace = Duration.seconds(10)

    // MARK: SQLite

    /// The pages of write-ahead log after which a commit checkpoints it into the file. Keeps the
    /// checkpoints (each copies every page changed since the last, with an fsync) from rewriting
    /// the same index and rollup pages every few commits.
    static let checkpointPages = 16_384
}
