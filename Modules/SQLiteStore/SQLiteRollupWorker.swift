import EventStore
import Foundation
import Synchronization
import SystemCalls

/// Brings the rollup tables of one rollups file (`RollupPart`) of a writable store up to its
/// events, on a thread of its own (never the Swift concurrency pool: it blocks on SQLite), so an
/// append's transaction inserts rows only. A store runs one per file, at once: each writes its
/// own file on its own connection, under that file's write lock, so the two never wait for each
/// other, and the rollups of an event take two processors' time at once instead of one's.
///
/// It applies what was stored after its file's watermark (`SQLiteEventStore.advanceRollups`), up
/// to `chunk` events per transaction, one transaction after another while they come full, and
/// then waits: a round starts at most every `period`, and neither a round nor its next chunk while
/// the appends come as a burst (`IngestOwner.isBursting`: their `ACK`s get the processor; the
/// rollups catch up after). A chunk's cost is mostly the rollup pages
/// it changes, written to the log once per chunk whatever the number of its events, so under a
/// sustained load fewer, larger chunks cost less per event (measured: `ingest-bench --sustain
/// 60 --sustain-rate`, docs/performance.md "The rollup worker under a sustained load"); the
/// period bounds what waiting adds to the lag. A read-only reader takes a second without a
/// move of the watermark for no collector at work (`rollupsCurrent`): a round moves it well
/// within that.
/// It writes its rollups file on a connection of its own (RollupFile.swift), so appends never
/// wait for it, nor it for them. A report never waits for the worker: it applies what is left
/// itself first (`rollupsCurrent`), so its answers hold every event stored. The thread ends
/// when the store closes or is released.
final class RollupWorker: Sendable {
    /// Events per transaction, at most.
    static let chunk = 20_000
    /// How often a round of chunks starts, at most (from the start of one to the next), unless
    /// the last chunk came full (more are waiting: the next follows at once).
    static let period = Duration.milliseconds(250)
    /// The worker threads' nice value (and the `ingest-store` thread's): when they and the ATLP
    /// workers compete for the processor, the appends (whose `ACK`s agents wait for) get more of
    /// it, and the rollups, which reports never wait for (`rollupsCurrent`), the rest; an idle
    /// processor runs them at full speed. 5, measured (docs/performance.md, "Bursts left in the
    /// log"): since a burst leaves them waiting (`IngestOwner.isBursting`), their priority no
    /// longer costs a burst anything (median 1.14 × rsyslog at 5, 1.20 at 0, 1.10–1.15 at 10),
    /// and at a sustained half rate it decides the lag: 1.05 / 1.18 s at 5, 1.00 / 1.10 s at 0,
    /// 1.18–2.16 s at 10 in the same hour. 5 rather than 0 keeps the appends ahead when a load
    /// beyond a burst's bound makes the two compete. (Before the bursts waited, 10 let a burst
    /// store ~12% more than 5, and 0 25–30% less.)
    static let nice: Int32 = 5

    private struct Flags {
        var stopped = false
        var paused = false
    }
    /// The rollups file it keeps.
    let part: RollupPart
    /// Its thread's name: `rollups-kinds`, `rollups-pages` (`top -H`, `perf`, `ingest-bench`).
    var threadName: String { "rollups-\(part)" }
    /// The connection that writes that file (`SQLiteEventStore.advanceRollups`): the file has a
    /// write lock of its own (RollupFile.swift), which appends on the store's connection never
    /// wait for, nor the other file's worker. nil once closed.
    let connection: Mutex<SQLiteDatabase?>
    private let flags = Mutex(Flags())
    private let wake = DispatchSemaphore(value: 0)
    /// What the chunks learnt of the rollup tables (RollupMemory.swift); only used under the
    /// lock of `connection`, so this lock is never contended.
    private let memory = Mutex(RollupMemory())

    init(_ part: RollupPart, connection: sending SQLiteDatabase) {
        self.part = part
        self.connection = Mutex(connection)
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
        Posix.startThread(name: threadName) { [weak store, self] in
            // Failing leaves it at the process's priority: slower ingest under load, still correct.
            try? Posix.setCurrentThreadNice(Self.nice)
            let clock = ContinuousClock()
            var roundStart = clock.now
            while true {
                _ = wake.wait(timeout: .now() + .nanoseconds((roundStart + Self.period - clock.now).waitNanoseconds))
                roundStart = clock.now
                let f = flags.withLock { $0 }
                if f.stopped { return }
                if f.paused { continue }
                guard let store else { return }
                // During a burst of appends the events wait in the ingest log, and what is
                // stored waits here: the processor goes to the appends (IngestOwner.burstRate).
                if store.ingest?.isBursting == true { continue }
                do throws(StoreError) {
                    while try store.advanceRollups(part, limit: Self.chunk) == Self.chunk, !flags.withLock({ $0.stopped || $0.paused }),
                        store.ingest?.isBursting != true
                    {}
                } catch {
                    // Closed: done. Anything else (another process holding the write lock past
                    // the busy timeout): try again next time; reports catch up on their own.
                    if error.code == .closed { return }
                }
            }
        }
    }

    /// Ends the thread (after the chunk it is applying, if any).
    func stop() {
        flags.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Stops the thread and takes its connection away (later chunks throw `closed`); returns it,
    /// to be released by the caller outside the lock (its deinit closes the handle).
    func close() -> SQLiteDatabase? {
        stop()
        return connection.withLock { c -> SQLiteDatabase? in
            defer { c = nil }
            return c
        }
    }

    /// Stops applying (`true`) until resumed: for tests of answers while the rollups lag.
    func pause(_ paused: Bool) {
        flags.withLock { $0.paused = paused }
        wake.signal()
    }
}
