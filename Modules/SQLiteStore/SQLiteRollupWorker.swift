import EventStore
import Foundation
import Synchronization
import SystemCalls

/// Brings the rollup tables of one rollups file (`RollupPart`) of a writable store up to its
/// events, on a thread of its own (never the Swift concurrency pool: it blocks on SQLite), so an
/// append's transaction inserts rows only. A store runs one per file, at once: each writes its
/// own file on its own connection, under that file's write lock, so the two never wait for each
/// other.
///
/// It applies what was stored after its file's watermark (`SQLiteEventStore.advanceRollups`), up
/// to `StoreTuning.rollupChunk` events per transaction, one transaction after another while they
/// come full, and then waits: a round starts at most every `StoreTuning.rollupPeriod`. Each
/// transaction moves the file's watermark with the rows it changes, so a crash at any point
/// leaves the file at a watermark it holds exactly, and the next worker applies the events after
/// it. The events come from `handoff` (the rows `ingest-store` stored, in memory) while they
/// follow the watermark; the others are read back from `events`. A report never waits for the worker: it applies what is left itself first
/// (`rollupsCurrent`), so its answers hold every event stored.
///
/// Lifecycle: `start(store)`, `stop(grace:)` (ends after the transaction it is in, and waits for
/// that); the thread also ends when the store closes or is released.
final class RollupWorker: Sendable {
    /// The rollups file it keeps.
    let part: RollupPart
    /// Its thread's name: `rollups-kinds`, `rollups-pages` (`top -H`, `perf`, `ingest-bench`).
    var threadName: String { thread.threadName }
    /// The connection that writes that file (`SQLiteEventStore.advanceRollups`): the file has a
    /// write lock of its own (RollupFile.swift), which appends on the store's connection never
    /// wait for, nor the other file's worker. nil once closed.
    let connection: Mutex<SQLiteDatabase?>
    /// Applies the rollups (`start`), named `threadName`.
    private let thread: ServiceThread
    /// The rows `ingest-store` stored since, in memory, for the worker to apply without reading
    /// them back (`RollupHandoff`).
    let handoff: RollupHandoff
    /// Set by tests: applies nothing until cleared (`pause`).
    private let paused = Atomic<Bool>(false)
    /// What the chunks learnt of the rollup tables (RollupMemory.swift); only used under the
    /// lock of `connection`, so this lock is never contended.
    private let memory = Mutex(RollupMemory())

    init(_ part: RollupPart, connection: sending SQLiteDatabase, handoffBytes: Int) {
        self.part = part
        handoff = RollupHandoff(maxBytes: handoffBytes)
        self.connection = Mutex(connection)
        thread = ServiceThread(threadName: "rollups-\(part)")
    }

    /// The memory, moved out (an empty one left): a chunk gives it back after its COMMIT.
    func takeMemory() -> RollupMemory {
        memory.withLock { m in
            var taken = RollupMemory()
            swap(&taken, &m)
            return taken
        }
    }

    /// Keeps `memory` for the next chunk.
    func keepMemory(_ kept: RollupMemory) {
        memory.withLock { $0 = kept }
    }

    /// Starts the thread over `store`, which it does not keep alive.
    func start(_ store: SQLiteEventStore) {
        thread.start { [weak store, self] thread in
            // Failing leaves it at the process's priority: slower ingest under load, still correct.
            try? Posix.setCurrentThreadNice(StoreTuning.backgroundNice)
            let clock = ContinuousClock()
            var roundStart = clock.now
            while thread.pause(for: roundStart + StoreTuning.rollupPeriod - clock.now) {
                roundStart = clock.now
                if paused.load(ordering: .relaxed) { continue }
                guard let store else { return }
                do throws(StoreError) {
                    while try store.advanceRollups(part, limit: StoreTuning.rollupChunk) == StoreTuning.rollupChunk,
                        !thread.isStopping, !paused.load(ordering: .relaxed)
                    {}
                } catch {
                    // Closed: done. Anything else (another process holding the write lock past
                    // the busy timeout): try again next time; reports catch up on their own.
                    if error.code == .closed { return }
                }
            }
        }
    }

    /// Ends the thread after the chunk it is applying, waiting up to `grace` for it; returns
    /// whether it ended. What it has not applied stays behind the watermark, for the next worker
    /// (or a report) to apply.
    @discardableResult
    func stop(grace: Duration) -> Bool {
        thread.requestStop(grace: grace)
        return thread.waitUntilStopped(timeout: grace)
    }

    /// Stops the thread and takes its connection away (later chunks throw `closed`); returns it,
    /// to be released by the caller outside the lock (its deinit closes the handle).
    func close() -> SQLiteDatabase? {
        stop(grace: StoreTuning.workerStopGrace)
        return connection.withLock { c -> SQLiteDatabase? in
            defer { c = nil }
            return c
        }
    }

    /// Stops applying (`true`) until resumed: for tests of answers while the rollups lag.
    func pause(_ paused: Bool) {
        self.paused.store(paused, ordering: .relaxed)
        thread.wake()
    }
}
