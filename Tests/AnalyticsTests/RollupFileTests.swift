import EventModel
import EventStore
import Foundation
@testable import SQLiteStore
import SystemCalls
import TestSupport
import Testing

/// The SQLite rollups live in a file of their own beside the database (`PATH-rollups`, schema
/// 10): appends never wait for its write lock, and a missing file or a watermark past the last
/// stored event is refilled from the events, with the answers the events give.
@Suite struct RollupFileTests {
    typealias R = RollupTests

    func temporaryPath() -> String { Fixtures.temporaryDirectory("rollupfile").appendingPathComponent("events.sqlite").path }

    /// Expects the answers of a fresh store at `path` (its worker paused: the report applies
    /// what the rollups lack itself) to equal those read from the events.
    func expectAnswersOfTheEvents(_ path: String) throws {
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        #expect(try store.activityRollup(.all) != nil)  // from the rollups, not the events
        let answers = try R.answers(store)
        store.close()
        let fromEvents = try R.answersFromEvents(path)
        for (i, f) in R.filters.enumerated() { #expect(answers[i] == fromEvents[i], "filter \(f)") }
    }

    /// Expects a rollups file of another layout to be read around by a read-only reader (it
    /// cannot make it anew: it reads the events, with the answers `before`), then made anew at
    /// this build's layout by the collector and refilled from every stored event.
    func expectReadAroundThenMadeAnew(_ path: String, _ before: [RollupTests.Answers]) throws {
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        #expect(try reader.activityRollup(.all) == nil)
        #expect(try R.answers(reader) == before)
        reader.close()
        try expectAnswersOfTheEvents(path)
        #expect(try sqlite(path + "-rollups", "PRAGMA user_version") == ["\(RollupFile.layout)"])
    }

    @Test(.timeLimit(.minutes(3))) func anAppendDoesNotWaitWhileAnotherProcessWritesTheRollups() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseRollupWorker(true)
        // A sqlite3 shell holds the rollups file's write lock until its input ends.
        let input = Pipe(), output = Pipe()
        let shell = try ChildProgram(
            "/usr/bin/sqlite3", arguments: ["-cmd", "ATTACH '\(path)-rollups' AS rollups", path],
            standardInput: .descriptor(input.fileHandleForReading.fileDescriptor),
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        defer {
            try? input.fileHandleForWriting.close()
            _ = shell.stop(within: .seconds(30))
        }
        input.fileHandleForWriting.write(Data("BEGIN; UPDATE rollups.rollup_watermark SET seq = seq; SELECT 'locked';\n".utf8))
        let answer = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        try #require(answer.hasPrefix("locked"))
        // In one file with the events, the append would wait for that lock and fail busy.
        let outcome = try store.append(EventBatch(appKey: "shop", events: [AnalyticsFixture.event("a", "click", "buy", at: AnalyticsFixture.day), AnalyticsFixture.event("b", "click", "buy", at: AnalyticsFixture.day)]))
        #expect(outcome.stored == 2)
    }

    @Test(.timeLimit(.minutes(3))) func aMissingRollupsFileIsRefilledFromTheEvents() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 10) { _ = try store.append(b) }
        _ = try R.answers(store)  // the rollups hold every event
        store.close()
        for suffix in ["-rollups", "-rollups-wal", "-rollups-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try expectAnswersOfTheEvents(path)
    }

    @Test(.timeLimit(.minutes(3))) func aWatermarkPastTheLastEventEmptiesTheRollupsAndRefillsThem() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 11) { _ = try store.append(b) }
        _ = try R.answers(store)
        store.close()
        // The events' file lost its last 100 events (written at synchronous = NORMAL, or an older
        // copy put back); the rollups file still counts them.
        _ = try sqlite(path, "DELETE FROM events WHERE seq > (SELECT MAX(seq) - 100 FROM events)")
        #expect(try sqlite(path, "SELECT seq > (SELECT MAX(seq) FROM events) FROM rollup_watermark") == ["1"])
        try expectAnswersOfTheEvents(path)
        #expect(try sqlite(path, "SELECT seq = (SELECT MAX(seq) FROM events) FROM rollup_watermark") == ["1"])
    }

    @Test(.timeLimit(.minutes(3))) func aFileOfAnotherLayoutIsReadAroundThenMadeAnewAndRefilled() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 12) { _ = try store.append(b) }
        let before = try R.answers(store)
        store.close()
        // Another build's layout: a table of other columns, one this build has no use for.
        _ = try sqlite(
            path + "-rollups",
            "DROP TABLE rollup_kind_events; CREATE TABLE rollup_kind_events (packed BLOB); CREATE TABLE rollup_elsewhere (x); PRAGMA user_version = 99")
        try expectReadAroundThenMadeAnew(path, before)
        #expect(try sqlite(path + "-rollups", "SELECT COUNT(*) FROM sqlite_master WHERE name = 'rollup_elsewhere'") == ["0"])
        #expect(try sqlite(path, "SELECT seq = (SELECT MAX(seq) FROM events) FROM rollup_watermark") == ["1"])
    }

    /// Layout 1 kept `rollup_kind_events` as one row per event; every later layout keeps blocks of them
    /// (KindEventBlocks.swift). A file of layout 1, recorded (1) or made before layouts were
    /// recorded (0), is read around, then made anew in blocks and refilled from the events.
    @Test(.timeLimit(.minutes(3)), arguments: [0, 1] as [Int64]) func aFileOfLayoutOneIsMadeAnewWithKindEventBlocks(_ recorded: Int64) throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        for b in R.traffic(seed: 13) { _ = try store.append(b) }
        let before = try R.answers(store)
        store.close()
        // The file as layout 1 left it: its kind events one row per event.
        _ = try sqlite(
            path,
            "DROP TABLE rollups.rollup_kind_events; \(RollupFile.firstLayout)"
                + """
                INSERT INTO rollups.rollup_kind_events (kind, ts, seq, source, actor, device, session)
                SELECT k.number, e.corrected_ts, e.seq, s.number, u.number, d.number, NULL FROM events e
                JOIN rollup_kinds k ON k.type = e.type AND k.name = e.name
                JOIN rollup_sources s ON s.app_key = e.app_key AND s.app_version = COALESCE(e.app_version, '')
                LEFT JOIN rollup_ids u ON u.app_key = e.app_key AND u.id = e.user_id
                LEFT JOIN rollup_ids d ON d.app_key = e.app_key AND d.id = e.device_id;
                PRAGMA rollups.user_version = \(recorded);
                """)
        #expect(try sqlite(path, "SELECT COUNT(*) = (SELECT COUNT(*) FROM events) FROM rollup_kind_events") == ["1"])
        try expectReadAroundThenMadeAnew(path, before)
        #expect(try sqlite(path, "SELECT SUM(entries) = (SELECT COUNT(*) FROM events), COUNT(*) < SUM(entries) FROM rollup_kind_events") == ["1|1"])
    }
}
