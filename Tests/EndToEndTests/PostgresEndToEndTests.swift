import Foundation
import Testing
import TestSupport

/// Collectors as real processes sharing one real PostgreSQL server (docs/schema.md, "PostgreSQL"):
/// exactly once across collectors, through a collector's SIGKILL and a database restart.
@Suite struct PostgresEndToEndTests {
    /// `serve --db URI` on an ephemeral loopback port.
    final class Collector {
        let process: ChildProcess
        let address: String

        init(_ uri: String) throws {
            process = try ChildProcess(Binaries.collector, ["serve", "--listen", "127.0.0.1:0", "--db", uri])
            address = try announcedAddress(in: try process.firstLine(within: 60))
        }
    }

    /// `send` of the test's events to `collectors` (failing over in order), from a pipe the test writes.
    static func send(to collectors: [Collector], spool: URL) throws -> ChildProcess {
        try ChildProcess(
            Binaries.agent,
            ["send"] + collectors.flatMap { ["--to", $0.address] } + [
                "--app-key", "shop", "--app-version", "1.2.0", "--spool", spool.path, "--batch-events", "200", "-",
            ], pipeStandardInput: true)
    }

    /// Stored events and distinct ids, summed ACK counts from `batches`, as psql reads them.
    static func counts(_ server: PostgresServer, _ uri: String) throws -> (events: Int, distinct: Int, stored: Int, duplicates: Int) {
        let row = try server.psql(
            uri: uri,
            "SELECT (SELECT count(*) FROM events), (SELECT count(DISTINCT id) FROM events), "
                + "(SELECT COALESCE(sum(stored), 0) FROM batches), (SELECT COALESCE(sum(duplicates), 0) FROM batches)")
        let v = (row.first ?? "").split(separator: "|").compactMap { Int($0) }
        guard v.count == 4 else { throw HarnessError(description: "psql answered \(row)") }
        return (v[0], v[1], v[2], v[3])
    }

    @Test func twoCollectorsReceivingTheSameEventsAtOnceStoreEachOnce() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let dir = Fixtures.temporaryDirectory("e2e-pg-two")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (first, second) = AgentCollectorEndToEndTests.eventLines()
        let a = try Collector(uri)
        let b = try Collector(uri)
        defer { a.process.kill(); b.process.kill() }
        let senders = try [a, b].enumerated().map { i, c in try Self.send(to: [c], spool: dir.appendingPathComponent("spool-\(i)")) }
        defer { senders.forEach { $0.kill() } }
        for s in senders { try #require(s.standardInput).write(contentsOf: first) }
        for s in senders { try #require(s.standardInput).write(contentsOf: second) }
        for s in senders { try #require(s.standardInput).close() }
        for s in senders {
            #expect(try s.waitForExit(within: 240) == 0, "send failed: \(s.standardError)")
            #expect(s.standardOutput.hasPrefix("sent 20000 events: 20000 acknowledged ("))
        }
        let c = try Self.counts(server, uri)
        #expect(c.events == 20_000)
        #expect(c.distinct == 20_000)
        #expect(c.stored == 20_000)
        #expect(c.duplicates == 20_000)

        // The report reads the same numbers through either collector's database URI.
        let report = try runCommand(Binaries.collector, ["report", "--db", uri, "--format", "json"], within: 60)
        #expect(report.status == 0, "report failed: \(report.err)")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(report.out.utf8)) as? [String: Any])
        let json = CollectorReportJSON(root: root)
        #expect(json.total("events") == 20_000)
        #expect(json.total("duplicates") == 20_000)
    }

    @Test func aCollectorKilledMidSendLosesNothingAndTheAgentSwitchesToTheOther() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let dir = Fixtures.temporaryDirectory("e2e-pg-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (first, second) = AgentCollectorEndToEndTests.eventLines()
        let a = try Collector(uri)
        let b = try Collector(uri)
        defer { a.process.kill(); b.process.kill() }
        let send = try Self.send(to: [a, b], spool: dir.appendingPathComponent("spool"))
        defer { send.kill() }
        let stdin = try #require(send.standardInput)
        try stdin.write(contentsOf: first)
        try poll("collector A storing the first events", within: 120) { try Self.counts(server, uri).events > 0 }
        a.process.kill(SIGKILL)
        try stdin.write(contentsOf: second)
        try stdin.close()
        #expect(try send.waitForExit(within: 240) == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent 20000 events: 20000 acknowledged ("))
        let c = try Self.counts(server, uri)
        #expect(c.events == 20_000)  // 0 lost
        #expect(c.distinct == 20_000)  // 0 twice
        #expect(c.stored == 20_000)
    }

    /// The PostgreSQL side of CrashRecoveryTests: one collector killed with SIGKILL again and
    /// again while the real agent sends (during group commits, and during its builder's
    /// transactions of the rollups), then once more right after the last `ACK`. Every
    /// acknowledged event is in `events` once (psql), and once the last collector's builder has
    /// passed the last `seq`, the rollups count each once.
    @Test(.timeLimit(.minutes(5))) func aCollectorKilledAgainAndAgainWhileItsBuilderBuildsLosesNothing() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let dir = Fixtures.temporaryDirectory("e2e-pg-kill-loop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let count = 60_000
        let started = try ServeProcess(database: uri)
        defer { started.kill() }
        let send = try agentSending(count, in: dir, to: started.address)
        defer { send.kill() }
        var (collector, kills) = try killedWhileSending(started, send)
        defer { collector.kill() }
        #expect(try send.waitForExit(within: 180) == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent \(count) events: \(count) acknowledged ("), "\(send.standardOutput)")
        #expect(kills >= 1, "the send ended before the first kill: nothing was tested")
        // Once more right after the last ACK, while the builder adds the last events.
        collector = try collector.killedAndStartedAgain()
        let c = try Self.counts(server, uri)
        #expect(c.events == count)  // 0 lost
        #expect(c.distinct == count)  // 0 twice
        try poll("the last collector's builder past the last seq", within: 120) {
            try server.psql(uri: uri, "SELECT (SELECT watermark FROM agg_state) >= (SELECT max(seq) FROM events)") == ["t"]
        }
        #expect(try server.psql(uri: uri, "SELECT sum(events) FROM agg_events WHERE type = 'click' AND name = 'buy'") == ["\(count)"])
        #expect(try server.psql(uri: uri, "SELECT sum(events) FROM agg_events") == ["\(count)"])
    }

    @Test func postgreSQLStoppedAndStartedDuringASendLosesNothing() throws {
        // A server of its own: it is stopped and started.
        let server = try PostgresServer()
        defer { server.stop() }
        let uri = server.uri()
        let dir = Fixtures.temporaryDirectory("e2e-pg-restart")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (first, second) = AgentCollectorEndToEndTests.eventLines()
        let collector = try Collector(uri)
        defer { collector.process.kill() }
        let send = try Self.send(to: [collector], spool: dir.appendingPathComponent("spool"))
        defer { send.kill() }
        let stdin = try #require(send.standardInput)
        try stdin.write(contentsOf: first)
        try poll("the first events stored", within: 120) { try Self.counts(server, uri).events > 0 }
        try server.stopServer()
        try stdin.write(contentsOf: second)
        // While the database is down the collector answers ERR unavailable and logs why.
        try collector.process.waitUntil("a failed commit logged", within: 60) { _, err in err.contains("not stored") }
        try server.start()
        try stdin.close()
        #expect(try send.waitForExit(within: 240) == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent 20000 events: 20000 acknowledged ("))
        let c = try Self.counts(server, uri)
        #expect(c.events == 20_000)
        #expect(c.distinct == 20_000)
    }
}
