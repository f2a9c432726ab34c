import Analytics
import EventModel
import EventStore
import Foundation
@testable import SQLiteStore
import Synchronization
import TestSupport
import Testing

/// The SQLite rollups follow the events behind `rollup_watermark` (a worker thread applies
/// them, off the append's transaction): answers must still count every stored event at once,
/// whatever the rollups' lag, and a restart must go on from the watermark, adding each event
/// exactly once. The reference is always the same answers read from the events
/// (`RollupTests.answersFromEvents`).
@Suite struct RollupWatermarkTests {
    typealias R = RollupTests

    func temporaryPath() -> String { Fixtures.temporaryDirectory("watermark").appendingPathComponent("events.sqlite").path }

    /// The lower of the two rollups files' watermarks and the last stored seq, read by the sqlite3 shell.
    func positions(_ path: String) throws -> (watermark: Int, last: Int) {
        let r = try sqlite(
            path,
            "SELECT MIN((SELECT seq FROM rollup_watermark), (SELECT seq FROM rollup_pages_watermark)); SELECT COALESCE(MAX(seq), 0) FROM events")
        return (Int(r[0]) ?? -1, Int(r[1]) ?? -1)
    }

    /// The positions once the watermark reached the last event (the worker applied all), within 10 s.
    func caughtUp(_ path: String) throws -> (watermark: Int, last: Int) {
        var p = try positions(path)
        for _ in 0..<200 where p.watermark != p.last {
            Thread.sleep(forTimeInterval: 0.05)
            p = try positions(path)
        }
        return p
    }

    /// Expects `answers` (per `RollupTests.filters`) to equal those read from the events of the closed store at `path`.
    func expectAnswersOfTheEvents(_ answers: [RollupTests.Answers], _ path: String) throws {
        let fromEvents = try R.answersFromEvents(path)
        for (i, f) in R.filters.enumerated() { #expect(answers[i] == fromEvents[i], "filter \(f)") }
    }

    @Test func answersCountEveryEventRightAfterTheAppendsWhileTheWorkerIsPaused() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        for b in R.traffic(seed: 5) { _ = try store.append(b) }
        let before = try positions(path)
        #expect(before.watermark == 0 && before.last > 500)
        // The report applies the lag itself, and reads the rollups.
        #expect(try store.activityRollup(.all) != nil)
        let lagging = try R.answers(store)
        #expect(try positions(path).watermark == before.last)
        store.close()
        try expectAnswersOfTheEvents(lagging, path)
    }

    @Test(.timeLimit(.minutes(3))) func aReadOnlyStoreReadsTheEventsWhenNobodyMovesTheWatermark() throws {
        let path = temporaryPath()
        let writer = try SQLiteEventStore(path: path)
        writer.pauseRollupWorker(true)
        for b in R.traffic(seed: 6) { _ = try writer.append(b) }
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        // It cannot apply the lag: the events answer, with every event counted.
        #expect(try reader.activityRollup(.all) == nil)
        let lagging = try R.answers(reader)
        #expect(try positions(path).watermark == 0)
        // With the writer's worker running, a new reader waits for it and reads the rollups.
        writer.pauseRollupWorker(false)
        let second = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try second.activityRollup(.all) != nil)
        #expect(try R.answers(second) == lagging)
        reader.close()
        second.close()
        writer.close()
        try expectAnswersOfTheEvents(lagging, path)
    }

    @Test(.timeLimit(.minutes(3))) func aRestartGoesOnFromTheWatermarkAddingEachEventOnce() throws {
        let path = temporaryPath()
        let batches = R.traffic(seed: 7)
        var store = try SQLiteEventStore(path: path)
        for b in batches.prefix(30) { _ = try store.append(b) }
        // The first half applied by the worker, then a crash-like stop between commits and applying.
        let p = try caughtUp(path)
        #expect(p.watermark == p.last && p.last > 0)
        store.pauseRollupWorker(true)
        for b in batches.dropFirst(30) { _ = try store.append(b) }
        store.close()
        let stopped = try positions(path)
        #expect(stopped.watermark == p.watermark && stopped.last > p.last)

        // A new collector's worker applies the rest on its own, from the watermark.
        store = try SQLiteEventStore(path: path)
        #expect(try caughtUp(path).watermark == stopped.last)
        let restarted = try R.answers(store)
        store.close()
        try expectAnswersOfTheEvents(restarted, path)
    }

    @Test(.timeLimit(.minutes(3))) func aReportDuringIngestCountsEveryAcknowledgedEvent() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        let batches = R.traffic(seed: 8)
        let acknowledged = Atomic<Int>(0)
        let problems = Mutex<[String]>([])
        let group = DispatchGroup()
        for sender in 0..<3 {
            group.enter()
            Thread {
                for b in batches.enumerated().filter({ $0.offset % 3 == sender }).map(\.element) {
                    do {
                        let outcome = try store.append(b)
                        acknowledged.add(outcome.stored, ordering: .sequentiallyConsistent)
                    } catch {
                        problems.withLock { $0.append("append: \(error)") }
                    }
                }
                group.leave()
            }.start()
        }
        var reports = 0
        while group.wait(timeout: .now() + .milliseconds(2)) == .timedOut, reports < 10_000 {
            let before = acknowledged.load(ordering: .sequentiallyConsistent)
            let counted = try store.totals(.all).events
            let perKind = try store.eventCounts(.all).reduce(0) { $0 + $1.count }
            if counted < before || perKind < before { problems.withLock { $0.append("report \(counted)/\(perKind) < \(before) acknowledged") } }
            reports += 1
        }
        #expect(problems.withLock { $0 }.isEmpty, "\(problems.withLock { $0.prefix(3) })")
        #expect(reports > 0)
        let total = acknowledged.load(ordering: .sequentiallyConsistent)
        #expect(try store.totals(.all).events == total)
        let during = try R.answers(store)
        store.close()
        try expectAnswersOfTheEvents(during, path)
    }

    /// Under a steady trickle the worker gathers: a round of chunks starts at most every
    /// `StoreTuning.rollupPeriod`, so the rollup pages a chunk changes are written to the log
    /// once a period, not at every batch, and the worker applies while the trickle goes on.
    @Test(.timeLimit(.minutes(3))) func underATrickleTheWorkerAppliesInRoundsAPeriodApart() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        let done = Atomic<Bool>(false)
        // Each rollups file's watermark, as it moves (each worker keeps its own rounds).
        let moves = Mutex<[RollupPart: [Int64]]>([:])
        let watcher = Thread {
            // Bounded: the trickle below ends within seconds, and so does this loop.
            for _ in 0..<12_000 where !done.load(ordering: .relaxed) {
                for part in RollupPart.allCases {
                    if let w = try? store.rollupPositions(part).watermark {
                        moves.withLock { if w != ($0[part]?.last ?? 0) { $0[part, default: []].append(w) } }
                    }
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
        }
        watcher.start()
        let clock = ContinuousClock()
        let start = clock.now
        for b in R.traffic(seed: 11) {
            _ = try store.append(b)
            Thread.sleep(forTimeInterval: 0.025)
        }
        let elapsed = Double((clock.now - start).components.seconds) + Double((clock.now - start).components.attoseconds) / 1e18
        done.store(true, ordering: .relaxed)
        Thread.sleep(forTimeInterval: 0.05)
        for part in RollupPart.allCases {
            let seen = moves.withLock { $0[part] ?? [] }
            let period = Double(StoreTuning.rollupPeriod.components.seconds) + Double(StoreTuning.rollupPeriod.components.attoseconds) / 1e18
            #expect(seen.count >= 1, "the \(part) worker applied during the trickle")
            #expect(Double(seen.count) <= elapsed / period + 2, "\(seen.count) moves of the \(part) watermark in \(elapsed) s")
        }
        store.close()
    }

    /// The nice values of this process's threads named `name` (/proc/self/task/*/stat: the
    /// 19th field, the 17th after the parenthesised name).
    func niceValues(ofThreadsNamed name: String) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close] == name
            else { return nil }
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            return fields.count > 16 ? Int(fields[16]) : nil
        }
    }

    /// The workers run at `StoreTuning.backgroundNice` (5), so when they compete the ATLP workers get more of
    /// the processor (docs/performance.md), while the answers stay exact (reports apply what the
    /// workers have not).
    @Test(.timeLimit(.minutes(3))) func theWorkerThreadRunsAtALowerPriority() throws {
        let store = try SQLiteEventStore(path: temporaryPath())
        defer { store.close() }
        func workers() -> [Int] { ["rollups-kinds", "rollups-pages"].flatMap { niceValues(ofThreadsNamed: $0) } }
        var nices = workers()
        for _ in 0..<200 where nices.count < 2 || nices.contains(where: { $0 != 5 }) {
            Thread.sleep(forTimeInterval: 0.05)
            nices = workers()
        }
        // One per rollups file (other tests' stores run theirs meanwhile).
        for name in ["rollups-kinds", "rollups-pages"] { #expect(!niceValues(ofThreadsNamed: name).isEmpty, "a thread \(name) runs") }
        #expect(nices.allSatisfy { $0 == 5 }, "nice values \(nices)")
    }
}
