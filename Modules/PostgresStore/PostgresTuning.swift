/// The PostgreSQL store's tuning constants, in one place, each with the invariant it keeps (as
/// the SQLite store's `StoreTuning`). None depends on the machine: each bounds a time, a size
/// or how much runs at once.
enum PostgresTuning {
    // MARK: every connection

    /// Statements every connection of the store runs first. `jit = off`: the store's statements
    /// (group commits, report reads, rollup build steps) each run for milliseconds to a few
    /// hundred, and PostgreSQL compiles any statement whose estimated cost passes
    /// `jit_above_cost`, as a report's reads over many days of rollups do (more so with the
    /// tail's per-row probes); the compile (hundreds of milliseconds with LLVM) then costs more
    /// than the statement. Keeps a statement's time its execution's.
    static let sessionSettings = ["SET jit = off"]

    // MARK: ingest

    /// Group commits that run at once, each on its own pooled connection. Keeps the database
    /// busy between commits: one's round trip and execution overlap another's WAL flush
    /// (PostgreSQL flushes concurrent commits together).
    static let maxCommits = 4

    /// Bytes handed to libpq per `PQputCopyData` call. Keeps a `COPY`'s client-side buffer
    /// bounded whatever the group's size.
    static let copyChunk = 1 << 20

    // MARK: the rollups

    /// How often a collector's rollup builder tries to lead (`pg_try_advisory_lock`), and how
    /// long the leader waits when the rollups are up to date. Keeps the rollups about this far
    /// behind `events` when idle, and the time another collector takes over after the leader dies.
    static let rollupInterval = Duration.milliseconds(250)

    /// Events (`seq`s) per rollup build step, one transaction each. Keeps a step's memory and
    /// its hold of the rollups' write lock bounded; the step after follows at once while events wait.
    static let rollupChunk: Int64 = 20_000

    /// How long a closing store waits for the builder to finish the step it is in. Keeps a
    /// close from returning while the builder still writes; a step still running past it is
    /// left as a crash leaves it (its transaction rolls back with the session, the watermark
    /// with it).
    static let rollupStopGrace = Duration.seconds(10)

    // MARK: day partitions

    /// Days before today, and after, that get a partition of their own; events outside go to
    /// `events_other`. Keeps the partitions a bounded set (about 400) while a late or clock-skewed
    /// event still lands in its day.
    static let partitionDaysBack = 400
    static let partitionDaysAhead = 2
}
