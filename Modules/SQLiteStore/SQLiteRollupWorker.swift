import EventStore
import Foundation
import Synchronization
import SystemCalls

/// Brings a writable store's rollup tables up to its events, on a thread of its own (never the
/// Swift concurrency pool: it blocks on SQLite), so an append's transaction inserts rows only.
///
/// Every `interval` it applies what was stored after `rollup_watermark`, up to `chunk` events
/// per transaction (`SQLiteEventStore.advanceRollups`): a large chunk costs one statement per
/// distinct key of its events (day and page, session, actor and view …), not one per event.
/// It starts small after a pause, so the watermark moves soon (a read-only reader takes a
/// quarter of a second without a move for no collector at work, `rollupsCurrent`), and doubles
/// the chunk while events are waiting (`nextChunk`): a chunk's cost is mostly the rollup pages it
/// changes, written to the log once per chunk, so small chunks under a sustained load fell behind
/// (measured: `ingest-bench --sustain 60`, chunks halved whenever one took over 200 ms, 250,000
/// events behind after the minute).
/// It writes the rollups file on a connection of its own (RollupFile.swift), so appends never
/// wait for it, nor it for them. A report never waits for the worker: it applies what is left
/// itself first (`rollupsCurrent`), so its answers hold every event stored. The thread ends
/// when the store closes or is released.
final class RollupWorker: Sendable {
    /// Events per transaction, at most.
    static let chunk = 20_000
    /// The first chunk's size after the worker found nothing to apply.
    static let smallestChunk = 500

    /// The size of the chunk after one of `size` events that applied `applied`: twice as large
    /// (at most `chunk`) when it was full, so more are waiting; `smallestChunk` when it was not.
    static func nextChunk(after size: Int, applied: Int) -> Int {
        applied < size ? smallestChunk : min(chunk, size * 2)
    }
    /// How long the worker sleeps when it found nothing or less than a chunk to apply.
    static let interval = Duration.milliseconds(100)

    private struct Flags {
        var stopped = false
        var paused = false
    }
    private let flags = Mutex(Flags())
    private let wake = DispatchSemaphore(value: 0)
    /// What the chunks learnt of the rollup tables (RollupMemory.swift); only used under the
    /// store's rollup connection lock, so this lock is never contended.
    private let memory = Mutex(RollupMemory())

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
        Posix.startThread(name: "sqlite-rollups") { [weak store, self] in
            var size = Self.smallestChunk
            while true {
                let (seconds, attoseconds) = Self.interval.components
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
                let f = flags.withLock { $0 }
                if f.stopped { return }
                if f.paused { continue }
                guard let store else { return }
                do throws(StoreError) {
                    while true {
                        let applied = try store.advanceRollups(limit: size)
                        let full = applied == size
                        size = Self.nextChunk(after: size, applied: applied)
                        if !full || flags.withLock({ $0.stopped || $0.paused }) { break }
                    }
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

    /// Stops applying (`true`) until resumed: for tests of answers while the rollups lag.
    func pause(_ paused: Bool) {
        flags.withLock { $0.paused = paused }
        wake.signal()
    }
}
