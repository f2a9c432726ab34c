import AgentCommands
import Collector
import CommandSupport
import EventStore
import Foundation
import Testing
import TestSupport

@Suite struct SendCommandTests {
    /// A collector in this process on a loopback port, with a temporary database.
    struct Collector {
        let dir = Fixtures.temporaryDirectory("send-cmd")
        let embedded: EmbeddedCollector
        let address: String

        init(ingestToken: String? = nil) throws {
            embedded = EmbeddedCollector(
                dbPath: dir.appendingPathComponent("db.sqlite").path, access: CollectorAccess(ingestToken: ingestToken))
            address = "\(try embedded.start())"
        }

        func file(_ name: String, _ text: String) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }

        var spool: String { dir.appendingPathComponent("spool").path }

        func stop() {
            embedded.stop()
            try? FileManager.default.removeItem(at: dir)
        }
    }

    func send(_ args: [String]) -> (ExitCode, CapturedStreams) {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["send"] + args, io: io)
        return (code, io)
    }

    @Test func shipsValidLinesAndNamesInvalidOnesByLineNumber() throws {
        let c = try Collector()
        defer { c.stop() }
        let input = try c.file(
            "events.ndjson",
            """
            {"id":"a","ts":1,"type":"click","name":"one"}
            {"id":"b","ts":2,"type":"click"}

            {"id":"c","ts":3,"type":"page_enter","name":"Home","duration":1500}
            {"id":"a","ts":1,"type":"click","name":"one"}
            """)
        let (code, io) = send(["--to", c.address, "--app-key", "shop", "--app-version", "1.2.0", "--spool", c.spool, input])
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput == "sent 3 events: 3 acknowledged (2 stored, 1 duplicate, 0 rejected), 1 invalid line skipped\n")
        #expect(io.standardError == "line 2: name is required\n")
        #expect(try c.embedded.store?.totals(.all).events == 2)
    }

    @Test func strictFailsOnInputWithoutAValidEvent() throws {
        let c = try Collector()
        defer { c.stop() }
        let empty = try c.file("empty.ndjson", "")
        let invalid = try c.file("invalid.ndjson", "{\"id\":\"b\"}\nnot json\n")
        let common = ["--to", c.address, "--app-key", "shop", "--app-version", "1.2.0", "--spool", c.spool]
        let (strictEmpty, e1) = send(common + ["--strict", empty])
        #expect(strictEmpty == .failure)
        #expect(e1.standardError.contains("autotrack-agent send: '\(empty)' held no events; --strict"))
        let (strictInvalid, e2) = send(common + ["--strict", invalid])
        #expect(strictInvalid == .failure)
        #expect(e2.standardError.contains("held no valid event (2 invalid lines)"))
        // Without --strict: exit 0, and a note on standard error.
        let (lenient, e3) = send(common + [empty])
        #expect(lenient == .success)
        #expect(e3.standardError.contains("autotrack-agent send: note: '\(empty)' held no events"))
        // --strict with a valid event passes.
        let one = try c.file("one.ndjson", "{\"id\":\"a\",\"ts\":1,\"type\":\"click\",\"name\":\"one\"}\n")
        let (strictOne, e4) = send(common + ["--strict", one])
        #expect(strictOne == .success, "\(e4.standardError)")
    }

    @Test func anUnreachableCollectorLeavesTheEventsInTheSpool() throws {
        let c = try Collector()
        defer { c.stop() }
        let input = try c.file("events.ndjson", #"{"id":"a","ts":1,"type":"click","name":"one"}"#)
        // Port 1 on loopback: nothing listens there.
        let (code, io) = send([
            "--to", "127.0.0.1:1", "--app-key", "shop", "--app-version", "1", "--spool", c.spool, "--timeout", "0.3", input,
        ])
        #expect(code == .failure)
        #expect(io.standardOutput == "sent 1 event: 0 acknowledged (0 stored, 0 duplicates, 0 rejected), 0 invalid lines skipped, 1 not acknowledged\n")
        #expect(io.standardError.contains("1 events not acknowledged after"))
        #expect(io.standardError.contains("they stay in the spool \(c.spool)"))

        // The next run, to a collector that listens, delivers the spooled event first.
        let empty = try c.file("empty.ndjson", "")
        let (again, io2) = send(["--to", c.address, "--app-key", "shop", "--app-version", "1", "--spool", c.spool, empty])
        #expect(again == .success, "\(io2.standardError)")
        #expect(io2.standardOutput == "sent 1 event: 1 acknowledged (1 stored, 0 duplicates, 0 rejected), 0 invalid lines skipped, 1 resent from an earlier run\n")
    }

    /// A batch file whose number does not fit (above 2^63 - 1) cannot be sent under its id: it is
    /// named with the reason, kept where it is, and `send` fails; the rest is delivered.
    @Test func aSpoolFileWithABatchNumberOutOfRangeIsReportedAndKept() throws {
        let c = try Collector()
        defer { c.stop() }
        try FileManager.default.createDirectory(atPath: c.spool, withIntermediateDirectories: true)
        let names = ["batch-99999999999999999999.log", "batch-09223372036854775808.log"]
        let line = Data(#"{"id":"old","ts":1,"type":"click","name":"kept"}"#.utf8 + [0x0A])
        for name in names { try line.write(to: URL(fileURLWithPath: c.spool + "/" + name)) }
        let input = try c.file("events.ndjson", #"{"id":"a","ts":1,"type":"click","name":"one"}"#)
        let (code, io) = send(["--to", c.address, "--app-key", "shop", "--app-version", "1", "--spool", c.spool, input])
        #expect(code == .failure)
        for name in names {
            #expect(io.standardError.contains("the spool file \(c.spool)/\(name) was not sent: its batch number"), "\(io.standardError)")
            #expect(FileManager.default.contents(atPath: c.spool + "/" + name) == line, "\(name) is kept as it was")
        }
        #expect(io.standardError.contains("is out of range (at most 9223372036854775807)"))
        #expect(io.standardOutput == "sent 1 event: 1 acknowledged (1 stored, 0 duplicates, 0 rejected), 0 invalid lines skipped\n")
        #expect(try c.embedded.store?.totals(.all).events == 1)
    }

    @Test func severalCollectorsFailOverToOneThatAnswers() throws {
        let c = try Collector()
        defer { c.stop() }
        let input = try c.file("events.ndjson", #"{"id":"a","ts":1,"type":"click","name":"one"}"#)
        // The first collector does not listen (port 1); the second does.
        let (code, io) = send([
            "--to", "127.0.0.1:1", "--to", c.address, "--app-key", "shop", "--app-version", "1", "--spool", c.spool, input,
        ])
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput == "sent 1 event: 1 acknowledged (1 stored, 0 duplicates, 0 rejected), 0 invalid lines skipped\n")
        #expect(try c.embedded.store?.totals(EventFilter()).events == 1)
    }

    @Test func sendsOverTLSToACollectorServingTLS() throws {
        let cert = try TestCertificate()
        let dir = Fixtures.temporaryDirectory("send-tls")
        defer { try? FileManager.default.removeItem(at: dir) }
        var options = EmbeddedCollector.Options()
        options.tlsCertificate = cert.certificate
        options.tlsKey = cert.key
        let collector = EmbeddedCollector(dbPath: dir.appendingPathComponent("db.sqlite").path, options: options)
        let address = "\(try collector.start())"
        defer { collector.stop() }
        let input = dir.appendingPathComponent("events.ndjson")
        try Data(#"{"id":"a","ts":1,"type":"click","name":"one"}"#.utf8).write(to: input)
        let spool = dir.appendingPathComponent("spool").path
        let args = ["--to", address, "--app-key", "shop", "--app-version", "1", "--spool", spool]
        let (code, io) = send(args + ["--timeout", "5", "--tls-ca", cert.certificate, input.path])
        #expect(code == .success, "\(io.standardError)")
        #expect(try collector.store?.totals(EventFilter()).events == 1)
        // Plain TCP to the TLS collector delivers nothing, says why; the event stays spooled.
        let (plain, io2) = send(args + ["--timeout", "0.5", input.path])
        #expect(plain == .failure)
        #expect(io2.standardError.contains("expects TLS: add --tls"), "\(io2.standardError)")
    }

    @Test func aWrongTokenIsRefused() throws {
        let c = try Collector(ingestToken: "secret")
        defer { c.stop() }
        let input = try c.file("events.ndjson", #"{"id":"a","ts":1,"type":"click","name":"one"}"#)
        let (code, io) = send([
            "--to", c.address, "--app-key", "shop", "--app-version", "1", "--spool", c.spool, "--token", "nope", input,
        ])
        #expect(code == .failure)
        #expect(io.standardError.contains("unauthorized"))
        #expect(io.standardError.contains("check --token"))
    }

    @Test func usageErrorsSayWhatToFix() {
        let (missing, io1) = send(["--app-key", "shop", "--app-version", "1"])
        #expect(missing == .usage)
        #expect(io1.standardError.contains("missing required option --to"))
        let (badAddress, io2) = send(["--to", "localhost", "--app-key", "a", "--app-version", "1"])
        #expect(badAddress == .usage)
        #expect(io2.standardError.contains("is not HOST:PORT"))
        let (twoFiles, io3) = send(["--to", "127.0.0.1:1", "--app-key", "a", "--app-version", "1", "a", "b"])
        #expect(twoFiles == .usage)
        #expect(io3.standardError.contains("give one input FILE"))
        let (noFile, io4) = send(["--to", "127.0.0.1:1", "--app-key", "a", "--app-version", "1", "/nonexistent/x.ndjson"])
        #expect(noFile == .failure)
        #expect(io4.standardError.contains("cannot open '/nonexistent/x.ndjson'"))
    }

    @Test func helpHasUsageOptionsAndAnExample() {
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["send", "--help"], io: io) == .success)
        #expect(io.standardOutput.contains("USAGE: autotrack-agent send"))
        #expect(io.standardOutput.contains("EXAMPLES:"))
    }
}
