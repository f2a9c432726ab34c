import Foundation
import Testing
import TestSupport

/// What a person with `sqlite3` sees beside a running collector (docs/collector.md, "The append
/// path"): `events` holds every acknowledged event within a second of its `ACK`, whatever the
/// rate, and the report's derived data (the rollups) count every event exactly once after the
/// collector is killed while it applies them.
@Suite(.serialized) struct OutsideReaderTests {
    /// `count` click events sent by the real agent to `serve` (batches of 500, as fast as the
    /// collector takes them), returning once `send` has exited after its last `ACK`.
    static func send(_ count: Int, to serve: ServeProcess, in dir: URL) throws {
        let (first, second) = AgentCollectorEndToEndTests.eventLines(count: count)
        let file = dir.appendingPathComponent("events.ndjson")
        try (first + second).write(to: file)
        let send = try ChildProcess(
            Binaries.agent,
            [
                "send", "--to", serve.address, "--app-key", "shop", "--app-version", "1.0", "--spool",
                dir.appendingPathComponent("spool").path, "--batch-events", "500", file.path,
            ])
        defer { send.kill() }
        #expect(try send.waitForExit(within: 180) == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent \(count) events: \(count) acknowledged ("), "\(send.standardOutput)")
    }

    /// The real agent sends 60,000 events as fast as the collector takes them; a second after
    /// `send` exits (after its last `ACK`), `sqlite3` counts them all in `events` while `serve`
    /// still runs, without any read of the collector's.
    @Test(.timeLimit(.minutes(5)))
    func aPersonWithSqlite3CountsEveryAcknowledgedEventASecondAfterTheLastACK() throws {
        let dir = Fixtures.temporaryDirectory("e2e-outside")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let count = 60_000
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }
        try Self.send(count, to: serve, in: dir)
        let lastACK = Date()
        Thread.sleep(until: lastACK.addingTimeInterval(1))
        #expect(try sqliteAsFound(db.path, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events") == ["\(count)|\(count)"])
        try serve.stop()
    }

    /// `serve` killed again and again after the send, while its rollup workers apply the stored
    /// events (each transaction moves a file's watermark with the rows it changes): the next
    /// collector goes on from the watermarks, and the report (read from the rollups) counts every
    /// event once.
    @Test(.timeLimit(.minutes(5)))
    func killedWhileTheRollupsAreAppliedTheReportCountsEveryEventOnce() throws {
        let dir = Fixtures.temporaryDirectory("e2e-kill-rollups")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let count = 60_000
        var serve = try ServeProcess(db: db)
        defer { serve.kill() }
        try Self.send(count, to: serve, in: dir)
        var watermarks: [String] = []
        for pause in [0.05, 0.3, 0.25] {  // bounded: three kills
            Thread.sleep(forTimeInterval: pause)
            serve.kill()
            _ = try serve.process.waitForExit(within: 10)
            watermarks += try sqliteAsFound(db.path, "SELECT (SELECT seq FROM rollup_watermark) || '/' || (SELECT seq FROM rollup_pages_watermark)")
            serve = try ServeProcess(db: db, listen: serve.address)
        }
        #expect(watermarks.count == 3, "\(watermarks)")
        // The last collector brings both files up to the last event; then each holds every event once.
        try poll("both rollups files reach the last event", within: 120) {
            try sqliteAsFound(db.path, "SELECT (SELECT seq FROM rollup_watermark) || '/' || (SELECT seq FROM rollup_pages_watermark)")
                == ["\(count)/\(count)"]
        }
        try serve.stop()
        #expect(try sqlite(db.path, "SELECT COUNT(*), MAX(seq) FROM events") == ["\(count)|\(count)"])
        #expect(try sqlite(db.path, "SELECT SUM(events) FROM rollup_events") == ["\(count)"], "watermarks at the kills: \(watermarks)")
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == count)
        #expect(report.nameCounts == ["click buy": count])
    }
}
