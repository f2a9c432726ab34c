import Foundation
import SystemCalls
import Testing
import TestSupport

/// An acknowledged event survives a collector killed at any moment (docs/collector.md, "What a
/// crash leaves"): `serve` killed with SIGKILL again and again while the real agent sends, while
/// the log's batches are being stored and while the rollups catch up; a third-party client's
/// batch killed right after its `ACK`. After each kill the next `serve` opens the database, reads
/// the batches its log holds back, and every acknowledged event is counted exactly once.
@Suite(.serialized) struct CrashRecoveryTests {
    /// Events stored in `events` and distinct ids among them, read with the sqlite3 shell as a
    /// person would (after a clean stop, so nothing waits in the log).
    static func counted(_ db: URL) throws -> [String] {
        try sqlite(db.path, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events")
    }

    @Test(.timeLimit(.minutes(5)))
    func everyAcknowledgedEventSurvivesACollectorKilledAgainAndAgainWhileTheAgentSends() throws {
        let dir = Fixtures.temporaryDirectory("e2e-kill-loop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let count = 100_000
        let started = try ServeProcess(db: db)
        defer { started.kill() }
        let send = try agentSending(count, in: dir, to: started.address)
        defer { send.kill() }
        // Each new collector must open what the last one left.
        var (serve, kills) = try killedWhileSending(started, send)
        defer { serve.kill() }
        let status = try send.waitForExit(within: 180)
        #expect(status == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent \(count) events: \(count) acknowledged ("), "\(send.standardOutput)")
        #expect(kills >= 1, "the send ended before the first kill: nothing was tested")

        // Killed once more right after the last ACK, while the log's batches and the rollups
        // are still being stored; then stopped cleanly by the next one.
        serve = try serve.killedAndStartedAgain()
        try serve.stop()
        #expect(try Self.counted(db) == ["\(count)|\(count)"])
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == count)
        #expect(report.nameCounts == ["click buy": count])
    }

    /// A client written from wire.md alone (tabs and spaces, other key order, escapes, unicode), killed
    /// right after its `ACK`s: the batches wait in the log, and the next collector stores them
    /// as they were sent.
    @Test(.timeLimit(.minutes(3)))
    func aThirdPartyClientsAcknowledgedBatchesSurviveAKillRightAfterTheirACK() throws {
        let dir = Fixtures.temporaryDirectory("e2e-kill-raw")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        var serve = try ServeProcess(db: db)
        defer { serve.kill() }
        let client = try RawATLPClient(port: serve.port)
        #expect(try client.request(#"HELLO  { "appVersion" : "2.0" , "appKey" : "shop" , "protocol" : 1 }"#).hasPrefix("WELCOME "))
        var acknowledged = 0
        for b in 0..<20 {
            let events = (0..<50).map { i in
                #"{ "props" : { "q" : "say \"hi\" \u00e9 \ud83d\ude00" } , "name" : "Käse \/ \#(b)" , "type" : "click" , "ts" : \#(1_767_225_600_000 + i) , "id" : "raw-\#(b)-\#(i)" }"#
            }
            let answer = try client.request("EVENTS   {\t \"events\" : [ \(events.joined(separator: " ,\t ")) ] ,\t \"batch\" : \"r\(b)\" }")
            #expect(answer == #"ACK {"batch":"r\#(b)","stored":50,"duplicates":0,"rejected":0}"#)
            if answer.hasPrefix("ACK ") { acknowledged += 50 }
        }
        serve.kill()
        _ = try serve.process.waitForExit(within: 10)
        serve = try ServeProcess(db: db, listen: serve.address)
        try serve.stop()
        #expect(acknowledged == 1_000)
        #expect(try Self.counted(db) == ["1000|1000"])
        #expect(try sqlite(db.path, "SELECT name, json_extract(props, '$.q') FROM events WHERE id = 'raw-7-3'") == ["Käse / 7|say \"hi\" é \u{1F600}"])
    }
}
