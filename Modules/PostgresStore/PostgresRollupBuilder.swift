import EventStore
import StoreSQL
import Synchronization
import SystemCalls

/// The thread that keeps the rollup tables up to date, in every collector that serves
/// (`StoreOptions.Access.create`); only one of them builds at a time.
///
/// Every `interval` it tries `pg_try_advisory_lock(builderLock)` on a connection of its own;
/// the one that holds it adds the events after the watermark, `chunk` at a time, until none is
/// left. When that collector dies or its connection breaks, PostgreSQL frees the lock with the
/// session, and another collector's builder takes it at its next try. The correctness of the
/// tables does not rest on the lock (every step holds `writeLock`): it only keeps the others idle.
final class PostgresRollupBuilder: Sendable {
    private let uri: String
    private let setup: [String]
    private let interval: Duration
    private let chunk: Int64
    /// True while this builder holds the builder lock (for tests and messages).
    private let leading = Atomic<Bool>(false)
    private let thread = ServiceThread(threadName: "pg-rollups")

    init(uri: String, setup: [String], interval: Duration = PostgresTuning.rollupInterval, chunk: Int64 = PostgresTuning.rollupChunk) {
        self.uri = uri
        // A builder commit lost in a database crash loses its watermark with it: the next step
        // adds the same events again. So its commits need not wait for the disk.
        self.setup = setup + ["SET synchronous_commit = off"]
        self.interval = interval
        self.chunk = chunk
    }

    var isLeading: Bool { leading.load(ordering: .sequentiallyConsistent) }

    /// Starts the thread; it runs until `stop`.
    func start() {
        thread.start { [self] thread in run(thread) }
    }

    /// Asks the thread to end and waits up to `grace` for it (it closes its connection, freeing
    /// the lock, after the step it is in); returns whether it ended.
    @discardableResult
    func stop(grace: Duration) -> Bool {
        thread.requestStop(grace: grace)
        return thread.waitUntilStopped(timeout: grace)
    }

    private func run(_ thread: ServiceThread) {
        var connection: PostgresConnection?
        var leader = false
        repeat {
            do throws(PostgresError) {
                if connection == nil {
                    let c = try PostgresConnection(uri: uri, applicationName: "autotrack-rollups")
                    for statement in setup { try c.execute(SQLQuery(raw: statement)) }
                    connection = c
                }
                if let c = connection {
                    if !leader {
                        leader = try c.execute("SELECT pg_try_advisory_lock(\(PostgresRollups.builderLock)) AS locked").first("locked", as: Bool.self) == true
                        leading.store(leader, ordering: .sequentiallyConsistent)
                    }
                    if leader {
                        while !thread.isStopping, try PostgresRollups.buildStep(c, chunk: chunk) != nil {}
                    }
                }
            } catch {
                // The connection broke (server restarted, backend terminated) or a step failed:
                // start again on a new connection; the lock went with the old session.
                connection = nil
                leader = false
                leading.store(false, ordering: .sequentiallyConsistent)
            }
        } while thread.pause(for: interval)
        leading.store(false, ordering: .sequentiallyConsistent)
        connection = nil
    }
}
