import EventModel
import EventStore
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The SQLite rollups are applied by two workers at once, each writing a file of its own
/// (`PATH-rollups`: kind events and click runs; `PATH-rollups-pages`: counts per day, dwell,
/// distinct ids, view pages, page sequences), each behind a watermark of its own. Whatever one
/// file lags, is missing or holds after a crash, the answers must be those of the events
/// (`RollupTests.answersFromEvents`).
@Suite struct RollupPartsTests {
    typealias R = RollupTests

    func temporaryPath() -> String { Fixtures.temporaryDirectory("rollup-parts").appendingPathComponent("events.sqlite").path }

    /// Each file's watermark and the last stored seq, read by the sqlite3 shell.
    func watermarks(_ path: String) throws -> (kinds: Int, pages: Int, last: Int) {
        let r = try sqlite(path, "SELECT seq FROM rollup_watermark; SELECT seq FROM rollup_pages_watermark; SELECT COALESCE(MAX(seq), 0) FROM events")
        guard r.count == 3 else { return (-1, -1, -1) }
        return (Int(r[0]) ?? -1, Int(r[1]) ?? -1, Int(r[2]) ?? -1)
    }

    /// The watermarks once `done` holds of them, within 10 s.
    func waitFor(_ path: String, _ done: ((kinds: Int, pages: Int, last: Int)) -> Bool) throws -> (kinds: Int, pages: Int, last: Int) {
        var w = try watermarks(path)
        for _ in 0..<200 where !done(w) {
            Thread.sleep(forTimeInterval: 0.05)
            w = try watermarks(path)
        }
        return w
    }

    /// Expects `answers` to equal those read from the events of the closed store at `path`.
    func expectAnswersOfTheEvents(_ answers: [RollupTests.Answers], _ path: String) throws {
        try RollupWatermarkTests().expectAnswersOfTheEvents(answers, path)
    }

    @Test(.timeLimit(.minutes(3))) func bothWorkersApplyEveryEventEachToItsOwnFile() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 21) { _ = try store.append(b) }
        let w = try waitFor(path) { $0.kinds == $0.last && $0.pages == $0.last }
        #expect(w.last > 500 && w.kinds == w.last && w.pages == w.last)
        // Each file holds its own tables' rows.
        #expect(try sqlite(path + "-rollups", "SELECT COUNT(*) > 0 FROM rollup_kind_events") == ["1"])
        #expect(try sqlite(path + "-rollups-pages", "SELECT COUNT(*) > 0 FROM rollup_events") == ["1"])
        let answers = try R.answers(store)
        store.close()
        try expectAnswersOfTheEvents(answers, path)
    }

    @Test(.timeLimit(.minutes(3)), arguments: [RollupPart.kinds, .pages]) func answersAreExactWhileEitherFileLags(_ lagging: RollupPart) throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true, part: lagging)
        for b in R.traffic(seed: 22) { _ = try store.append(b) }
        // The other worker applies everything; the paused one nothing.
        let w = try waitFor(path) { lagging == .kinds ? $0.pages == $0.last : $0.kinds == $0.last }
        #expect(lagging == .kinds ? (w.kinds == 0 && w.pages == w.last) : (w.pages == 0 && w.kinds == w.last))
        // A report applies what the lagging file lacks itself, and reads the rollups.
        #expect(try store.activityRollup(.all) != nil)
        let answers = try R.answers(store)
        let after = try watermarks(path)
        #expect(after.kinds == after.last && after.pages == after.last)
        store.close()
        try expectAnswersOfTheEvents(answers, path)
    }

    @Test(.timeLimit(.minutes(3))) func aRestartWithOneFileBehindTheOtherBringsEachUpFromItsOwnWatermark() throws {
        let path = temporaryPath()
        let batches = R.traffic(seed: 23)
        var store = try SQLiteEventStore(path: path)
        for b in batches.prefix(30) { _ = try store.append(b) }
        let first = try waitFor(path) { $0.kinds == $0.last && $0.pages == $0.last }
        #expect(first.kinds == first.last && first.pages == first.last)
        // The kinds file's worker stops there (a crash-like stop between commits and applying);
        // the pages file's goes on.
        store.pauseRollupWorker(true, part: .kinds)
        for b in batches.dropFirst(30) { _ = try store.append(b) }
        let stopped = try waitFor(path) { $0.pages == $0.last }
        store.close()
        #expect(stopped.kinds == first.kinds && stopped.pages == stopped.last && stopped.last > first.last)
        // Another collector: each worker goes on from its own file's watermark.
        store = try SQLiteEventStore(path: path)
        let restarted = try waitFor(path) { $0.kinds == $0.last && $0.pages == $0.last }
        #expect(restarted.kinds == stopped.last && restarted.pages == stopped.last)
        let answers = try R.answers(store)
        store.close()
        try expectAnswersOfTheEvents(answers, path)
    }

    @Test(.timeLimit(.minutes(3))) func aMissingPagesFileIsRefilledFromTheEventsAndTheOtherKept() throws {
        let path = temporaryPath()
        var store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 24) { _ = try store.append(b) }
        _ = try R.answers(store)
        store.close()
        let kindRows = try sqlite(path, "SELECT COUNT(*) FROM rollup_kind_events")
        for suffix in ["-rollups-pages", "-rollups-pages-wal", "-rollups-pages-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        // A read-only reader meanwhile reads the events.
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try reader.activityRollup(.all) == nil)
        reader.close()
        store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true, part: .kinds)
        let w = try waitFor(path) { $0.pages == $0.last }
        #expect(w.pages == w.last && w.kinds == w.last)
        #expect(try sqlite(path, "SELECT COUNT(*) FROM rollup_kind_events") == kindRows)
        #expect(try store.activityRollup(.all) != nil)
        let answers = try R.answers(store)
        store.close()
        try expectAnswersOfTheEvents(answers, path)
    }

    @Test(.timeLimit(.minutes(3))) func aDatabaseOfTheSingleRollupsFileUpgradesAndAnswersTheSame() throws {
        let path = temporaryPath()
        var store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 25) { _ = try store.append(b) }
        let before = try R.answers(store)
        store.close()
        // The file as a build before the split left it: every rollup table in `PATH-rollups`
        // (the pages file's tables copied in, its watermark and backlog as the single file's),
        // no layout recorded, and no pages file.
        let pageTables = try sqlite(path + "-rollups-pages", "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rollup_%' AND name NOT LIKE 'rollup_pages_%'")
        #expect(pageTables.count == 9)
        _ = try sqlite(
            path,
            pageTables.map { "CREATE TABLE rollups.\($0) AS SELECT * FROM rollup_pages.\($0);" }.joined() + "PRAGMA rollups.user_version = 0;")
        for suffix in ["-rollups-pages", "-rollups-pages-wal", "-rollups-pages-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        // A read-only reader of it reads the events, with the same answers.
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try reader.activityRollup(.all) == nil)
        #expect(try R.answers(reader) == before)
        reader.close()
        // The collector makes both files at this build's layout and fills them from every event.
        store = try SQLiteEventStore(path: path)
        let w = try waitFor(path) { $0.kinds == $0.last && $0.pages == $0.last }
        #expect(w.kinds == w.last && w.pages == w.last)
        #expect(try sqlite(path + "-rollups", "SELECT COUNT(*) FROM sqlite_master WHERE name = 'rollup_events'") == ["0"])
        #expect(try sqlite(path + "-rollups", "PRAGMA user_version") == (try sqlite(path + "-rollups-pages", "PRAGMA user_version")))
        #expect(try sqlite(path + "-rollups", "PRAGMA user_version") != ["0"])
        #expect(try store.activityRollup(.all) != nil)
        #expect(try R.answers(store) == before)
        store.close()
        try expectAnswersOfTheEvents(before, path)
    }

    @Test(.timeLimit(.minutes(3))) func aRebuildReplaysTheBacklogOfBothFiles() throws {
        let path = temporaryPath()
        var store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 26) { _ = try store.append(b) }
        let before = try R.answers(store)
        store.close()
        // Stale rows in both files, and both apps waiting in both backlogs.
        _ = try sqlite(
            path,
            "DELETE FROM rollup_kind_events; UPDATE rollup_click_runs SET clicks = clicks + 1; DELETE FROM rollup_transitions; UPDATE rollup_events SET events = events + 1;"
                + "INSERT OR REPLACE INTO rollup_backlog VALUES ('shop', 0), ('blog', 0); INSERT OR REPLACE INTO rollup_pages_backlog VALUES ('shop', 0), ('blog', 0);")
        store = try SQLiteEventStore(path: path)
        #expect(try store.activityRollup(.all) == nil)
        var progress: [RollupProgress] = []
        try store.rebuildRollups(chunk: 100) { progress.append($0) }
        #expect(try sqlite(path, "SELECT COUNT(*) FROM rollup_backlog; SELECT COUNT(*) FROM rollup_pages_backlog") == ["0", "0"])
        // One line of progress per app, counting its events once.
        for app in ["blog", "shop"] {
            let last = progress.last { $0.appKey == app }
            #expect(last != nil && last?.replayed == last?.total)
        }
        #expect(try store.activityRollup(.all) != nil)
        #expect(try R.answers(store) == before)
        store.close()
        try expectAnswersOfTheEvents(before, path)
    }
}
