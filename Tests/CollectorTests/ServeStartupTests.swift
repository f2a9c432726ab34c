import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import SQLiteStore
import SystemCalls
import TestSupport
import Testing

/// How `serve` starts (and fails to) and what `report` says of a missing database.
@Suite struct ServeStartupTests {
    func run(_ args: [String]) -> (code: Int32, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code.rawValue, io.standardOutput, io.standardError)
    }

    @Test func aTakenPortLeavesNoDatabaseBehind() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: collectorBinary.path),
            "the collector binary \(collectorBinary.path) is missing: run `swift build` first (Tools/test.sh does)")
        let dir = Fixtures.temporaryDirectory("serve-taken")
        let holder = EmbeddedCollector(dbPath: dir.appendingPathComponent("holder.sqlite").path)
        let taken = try holder.start()
        defer { holder.stop() }
        let db = dir.appendingPathComponent("events.sqlite").path
        // As a child process: serve in this process would route signals that other tests' serve uses.
        let run = try runProgram(collectorBinary.path, ["serve", "--listen", "127.0.0.1:\(taken.port)", "--db", db], timeout: 30)
        #expect(run.status == 1, "stderr: \(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: db))
        #expect(!FileManager.default.fileExists(atPath: db + "-wal"))
    }

    /// The collector's parts start as one group (store, ATLP server, studio): a studio whose
    /// port is taken stops the ATLP server and the store started before it, so the port and the
    /// database are free for the next try, which starts.
    @Test func aPartThatCannotStartStopsThePartsStartedBeforeIt() throws {
        let dir = Fixtures.temporaryDirectory("serve-group")
        let holder = EmbeddedCollector(dbPath: dir.appendingPathComponent("holder.sqlite").path)
        let taken = try holder.start()
        defer { holder.stop() }
        let db = dir.appendingPathComponent("events.sqlite").path
        // A port free a moment ago, for the ATLP server of both tries.
        let probe = EmbeddedCollector(dbPath: dir.appendingPathComponent("probe.sqlite").path)
        let free = try probe.start()
        probe.stop()
        var options = EmbeddedCollector.Options(listen: free, access: CollectorAccess(adminToken: "admin"))
        options.studio = SocketAddress(host: "127.0.0.1", port: taken.port)
        let collector = EmbeddedCollector(dbPath: db, options: options)
        #expect(throws: CollectorStartError.self) { try collector.start() }
        #expect(collector.address == nil)
        #expect(collector.store == nil)
        // The store let its ingest log go: another store owns it and appends.
        let other = try SQLiteEventStore(path: db)
        #expect(try other.append(EventBatch(appKey: "group", appVersion: nil, events: [TestEvents.json("e1")])).stored == 1)
        other.close()
        // Nothing listens on the ATLP server's port: the next start binds it again, and the studio.
        options.studio = SocketAddress(host: "127.0.0.1", port: 0)
        let again = EmbeddedCollector(dbPath: db, options: options)
        #expect(try again.start() == free)
        #expect(again.studioAddress != nil)
        again.stop()
    }

    @Test func reportOnAMissingDatabaseSaysItDoesNotExist() {
        let db = Fixtures.temporaryDirectory("report-missing").appendingPathComponent("none.sqlite").path
        let r = run(["report", "--db", db])
        #expect(r.code == 1)
        #expect(r.err.contains("no database at \(db)"))
        #expect(!r.err.contains("writable"))
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func anUnwritableReadyFileFailsBeforeListening() {
        let dir = Fixtures.temporaryDirectory("serve-ready")
        let db = dir.appendingPathComponent("events.sqlite").path
        let r = run(["serve", "--listen", "127.0.0.1:0", "--db", db, "--ready-file", dir.appendingPathComponent("no/such/ready").path])
        #expect(r.code == 1)
        #expect(r.err.contains("--ready-file"))
        #expect(!r.out.contains("listening"))
    }

    @Test func rulesPublishWaitsForACollectorThatIsStillStarting() throws {
        let dir = Fixtures.temporaryDirectory("publish-retry")
        // A free port: one a collector had, once it has stopped.
        let probe = EmbeddedCollector(dbPath: dir.appendingPathComponent("probe.sqlite").path)
        let port = try probe.start().port
        probe.stop()
        let rules = dir.appendingPathComponent("rules.json").path
        try Data(#"{"rules":[{"id":"r","appKey":"shop","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","keyPath":"a","keyName":"a"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: rules))
        let late = EmbeddedCollector(
            dbPath: dir.appendingPathComponent("late.sqlite").path, listen: SocketAddress(host: "127.0.0.1", port: port),
            access: CollectorAccess(adminToken: "ad"))
        defer { late.stop() }
        // The collector starts 0.3 s after publish first tries (and is refused); should it fail
        // to start, publish fails and says so.
        let starter = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            _ = try? late.start()
        }
        starter.start()
        let r = run(["rules", "publish", rules, "--to", "127.0.0.1:\(port)", "--token", "ad"])
        #expect(r.code == 0, "\(r.err)")
        #expect(r.out == "stored 1 rule at 127.0.0.1:\(port)\n")
    }
}
