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

    /// Bytes of the ingest log (IngestLog.swift) past which an append that finds at least half
    /// of it stored in `events` copies the rest into a new file first. Keeps the log's file
    /// within about twice this plus what waits, while a copy (of what waits, at most
    /// `SQLiteMemoryBounds.waitingBytes`) comes once per this many bytes logged.
    static let logCompactBytes: UInt64 = 64 << 20

    /// Bytes of batches waiting (`PendingBatch.heldBytes`) beyond which an append stores waiting
    /// batches itself before logging its own, whatever their age (the default of
    /// `SQLiteMemoryBounds.waitingBytes`). Keeps the backlog's memory bounded whatever the size of
    /// the events, while holding more than `maxStoreLag` of appends at 150,000 events/s of a few
    /// hundred bytes each.
    static let maxWaitingBytes = 128 << 20

    /// Batches per transaction of `events`, at most. Keeps a read that stores what waits
    /// (`ingestCurrent`) from holding the connection for longer than one such transaction.
    static let batchesPerStore = 64

    /// Events per INSERT into `events`, at most: one statement for many rows costs SQLite's
    /// statement machine and our binding less than one each. Keeps the prepared statement texts
    /// few: one per row count from 1 to this (the last INSERT of a batch has fewer rows).
    static let eventsPerInsert = 32

    /// Keys the filter of stored event ids (`EventIdFilter`, IngestDedup.swift) is sized for at
    /// least (about 5 MiB). Keeps a small database from rebuilding its filter over and over as it
    /// grows; past its keys the dedup builds a larger one.
    static let filterMinimumKeys = 4 << 20

    /// Bits of the event id filter per key it is sized for. Keeps the share of new events sent
    /// to an exact lookup near 1 % while the filter holds at most its keys.
    static let filterBitsPerKey = 10

    // MARK: the zone map (`event_zones`)

    /// The widest time range, in ms, a zone grows to by taking later commits in (15 minutes).
    /// Keeps a query bounded in time reading at most about this much more than its range.
    static let zoneMaxSpan: Int64 = 15 * 60_000

    /// The most `seq`s a zone grows to by taking later commits in. Keeps a zone from spanning
    /// more rows than a read skips cheaply at over ~70 events a second.
    static let zoneMaxSeqs: Int64 = 65_536

    /// How many of the map's last rows a commit looks through for its app's latest zone. Keeps a
    /// commit's lookup bounded however many apps write at once.
    static let zoneLatestRows = 64

    /// Gaps of at most this many seqs between two of a query's ranges are read rather than
    /// skipped. Keeps a query to one rowid range stepped in order where several nearby ranges
    /// would be ORed (and its ORDER BY then sort).
    static let zoneMergedGap: Int64 = 4096

    /// Ranges in a query, at most: past it, the closest are merged. Keeps a query's text and
    /// plan small.
    static let zoneMaxRanges = 32

    // MARK: the disk's reserve (`DiskReserve`)

    /// Bytes a stored event takes at most, in `events` with its indexes and in the rollups
    /// (docs/schema.md measures about 110 on average; a long `props` takes more). Keeps room on
    /// the disk for the events waiting in the journal before a batch is acknowledged.
    static let diskBytesPerWaitingEvent: UInt64 = 1_024

    /// Bytes SQLite needs besides the rows: a checkpoint, a rollup chunk's journal pages. Keeps
    /// a write from failing for space after its batch was acknowledged.
    static let diskHeadroom: UInt64 = 16 << 20

    /// How old a reading of the free space may be while the disk is far from its reserve. Keeps
    /// `statvfs` off most appends.
    static let diskReadingMaxAge = Duration.milliseconds(100)

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

    /// Events per block of `rollup_kind_events` (KindEventBlocks.swift), at most. Keeps a
    /// funnel's read of a kind to few, large blocks while the block a late event lands in stays
    /// cheap to rewrite.
    static let kindEventBlockEntries = 256

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

    /// The page cache of a writing connection, per file it writes (KiB). Keeps the pages of the
    /// B-trees an append or a rollup worker walks in memory, bounded so a collector's memory
    /// levels off; pages beyond it are read through the memory map.
    static let writerCacheKiB = 32_768

    /// How much of a database file a connection maps for reading (1 GiB; beyond it, pages are
    /// read with a system call each). Keeps a scan from copying every page out of the kernel.
    static let readerMapBytes = 1 << 30
}
