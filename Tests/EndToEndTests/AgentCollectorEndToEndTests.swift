import Foundation
import Testing
import TestSupport

/// The agent and the collector as real processes talking over real sockets.
@Suite struct AgentCollectorEndToEndTests {
    @Test func theDemoShipsItsSessionAndTheReportCountsItExactly() throws {
        let dir = Fixtures.temporaryDirectory("e2e-demo")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }

        let demo = try runCommand(Binaries.agent, ["demo", "--to", serve.address], within: 60)
        #expect(demo.status == 0, "demo failed: \(demo.err)")
        #expect(demo.out.hasPrefix("demo: 25 interactions: 26 events (1 kvc_error), session s-"))
        #expect(demo.out.hasSuffix(": 26 acknowledged (26 stored, 0 duplicates, 0 rejected)\n"))

        try serve.stop()
        DemoExpectations.check(try CollectorReportJSON(db: db))
    }

    @Test func theReadmeCommandRunsFromAnEmptyDirectoryWithAnEmbeddedCollector() throws {
        let dir = Fixtures.temporaryDirectory("e2e-readme")
        defer { try? FileManager.default.removeItem(at: dir) }
        // No configuration files anywhere near: the defaults are built in.
        let p = try ChildProcess(Binaries.agent, ["demo", "--format", "json"], workingDirectory: dir)
        defer { p.kill() }
        #expect(try p.waitForExit(within: 60) == 0, "demo failed: \(p.standardError)")
        let object = try JSONSerialization.jsonObject(with: Data(p.standardOutput.utf8)) as? [String: Any]
        DemoExpectations.check(CollectorReportJSON(root: try #require(object)))
        #expect(p.standardError.contains("demo: 25 interactions: 26 events (1 kvc_error)"))

        let table = try runCommand(Binaries.agent, ["demo"], within: 60)
        #expect(table.status == 0)
        #expect(table.out.contains("EVENTS BY TYPE"))
        #expect(table.out.contains("detail-share-sku"))
    }

    /// `count` events as NDJSON lines, in two halves.
    static func eventLines(count: Int = 20_000) -> (first: Data, second: Data) {
        var text = ""
        text.reserveCapacity(count * 90)
        var half = Data()
        for i in 0..<count {
            if i == count / 2 {
                half = Data(text.utf8)
                text = ""
            }
            text += #"{"id":"e-\#(i)","ts":\#(1_767_225_600_000 + i),"type":"click","name":"buy","props":{"n":\#(i)}}"# + "\n"
        }
        return (half, Data(text.utf8))
    }

    @Test func sendDeliversEveryEventExactlyOnceAcrossACollectorKilledMidway() throws {
        let dir = Fixtures.temporaryDirectory("e2e-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let (first, second) = Self.eventLines()

        var serve = try ServeProcess(db: db)
        defer { serve.kill() }
        // Events come through a pipe the test holds open, so send is surely mid-way when the collector dies.
        let send = try ChildProcess(
            Binaries.agent,
            [
                "send", "--to", serve.address, "--app-key", "shop", "--app-version", "1.2.0", "--spool",
                dir.appendingPathComponent("spool").path, "--batch-events", "200", "-",
            ], pipeStandardInput: true)
        defer { send.kill() }
        let stdin = try #require(send.standardInput)
        try stdin.write(contentsOf: first)
        try poll("the collector storing the first events", within: 60) {
            try CollectorReportJSON(db: db).total("events") > 0
        }
        serve.kill()
        try serve.process.waitForExit(within: 10)

        // The second half goes into the spool while nothing listens; then the collector comes back
        // on the same port and database, and send reconnects and resends what was not acknowledged.
        try stdin.write(contentsOf: second)
        serve = try ServeProcess(db: db, listen: serve.address)
        try stdin.close()
        let status = try send.waitForExit(within: 90)
        #expect(status == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent 20000 events: 20000 acknowledged ("))
        #expect(send.standardOutput.hasSuffix(" 0 rejected), 0 invalid lines skipped\n"))

        try serve.stop()
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == 20_000)
        #expect(report.total("rejected") == 0)
        #expect(report.nameCounts == ["click buy": 20_000])
    }

    /// A fresh machine: no ~/.cache yet. The default spool is made with its parents, each new
    /// folder 0700 (the events are the user's), and the events go through it.
    @Test func theDefaultSpoolIsMadeWithItsParentsOnAFreshHome() throws {
        let dir = Fixtures.temporaryDirectory("e2e-fresh-home")
        defer { try? FileManager.default.removeItem(at: dir) }
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let db = dir.appendingPathComponent("events.sqlite")
        let file = dir.appendingPathComponent("events.ndjson")
        try Self.eventLines(count: 10).first.write(to: file)
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }
        let send = try ChildProcess(
            Binaries.agent, ["send", "--to", serve.address, "--app-key", "shop", "--app-version", "1.2.0", file.path],
            environment: ["HOME": home.path, "XDG_CACHE_HOME": ""])
        #expect(try send.waitForExit(within: 60) == 0, "send failed: \(send.standardError)")
        #expect(send.standardOutput.hasPrefix("sent 5 events: 5 acknowledged ("), "\(send.standardOutput)")
        for folder in [".cache", ".cache/autotrack", ".cache/autotrack/spool", ".cache/autotrack/spool/shop"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent(folder).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700, "\(folder)")
        }
        try serve.stop()
        #expect(try CollectorReportJSON(db: db).total("events") == 5)
    }

    @Test func aSendKilledMidwayIsFinishedByTheNextRunOnItsSpool() throws {
        let dir = Fixtures.temporaryDirectory("e2e-kill-send")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let (first, second) = Self.eventLines(count: 6_000)
        let whole = dir.appendingPathComponent("events.ndjson")
        try (first + second).write(to: whole)
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }
        let args = [
            "send", "--to", serve.address, "--app-key", "shop", "--app-version", "1.2.0", "--spool",
            dir.appendingPathComponent("spool").path, "--batch-events", "200",
        ]

        let killed = try ChildProcess(Binaries.agent, args + ["-"], pipeStandardInput: true)
        defer { killed.kill() }
        try #require(killed.standardInput).write(contentsOf: first)
        try poll("the collector storing the first events", within: 60) {
            try CollectorReportJSON(db: db).total("events") > 0
        }
        killed.kill(SIGKILL)
        try killed.waitForExit(within: 10)

        // The whole file again, on the same spool: leftovers first, repeats dropped by id.
        let rerun = try runCommand(Binaries.agent, args + [whole.path], within: 90)
        #expect(rerun.status == 0, "send failed: \(rerun.err)")
        #expect(rerun.out.contains(" 0 rejected), 0 invalid lines skipped"))
        try serve.stop()
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == 6_000)
        #expect(report.nameCounts == ["click buy": 6_000])
    }

    /// Under `ulimit -f` SIGXFSZ killed send without a word (exit 153). Now the spool refuses the
    /// events past the limit with the reason, send fails, and what was acknowledged is stored.
    @Test func aFileSizeLimitIsReportedInsteadOfKillingSend() throws {
        let dir = Fixtures.temporaryDirectory("e2e-fsize")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }
        let input = dir.appendingPathComponent("events.ndjson")
        let (first, second) = Self.eventLines(count: 3_000)  // about 270 KB, past a 64 KiB limit
        try (first + second).write(to: input)
        // SIGXFSZ at its default action (a test runner may start us with it ignored), as in a shell.
        let sent = try runCommand(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "--default-signal=XFSZ", "/bin/sh", "-c", #"ulimit -f 64 && exec "$0" "$@""#, Binaries.agent.path, "send", "--to", serve.address, "--app-key", "shop",
                "--app-version", "1", "--spool", dir.appendingPathComponent("spool").path, "--timeout", "10", input.path,
            ], within: 120)
        #expect(sent.status == 1, "send: \(sent.err.suffix(500))")
        #expect(sent.err.contains("File too large"))
        #expect(sent.err.contains("the spool file reached the file-size limit ('ulimit -f'): raise it"))
        #expect(sent.err.components(separatedBy: ": not sent: ").count == 11, "the first 10 refusals named, then counted")
        #expect(sent.err.contains(" events were not taken into the spool "))
        let acknowledged = try #require(sent.out.firstMatch(of: /sent \d+ events: (\d+) acknowledged .* (\d+) not acknowledged/), "stdout: \(sent.out)")
        #expect(Int(acknowledged.1)! > 0 && Int(acknowledged.1)! + Int(acknowledged.2)! == 3_000, "stdout: \(sent.out)")
        try serve.stop()
        #expect(try CollectorReportJSON(db: db).total("events") == Int(acknowledged.1))
    }

    @Test func invalidEventsAreCountedAndKeptWithTheirReasons() throws {
        let dir = Fixtures.temporaryDirectory("e2e-invalid")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }

        // send skips invalid lines itself, naming each by its line number.
        let input = dir.appendingPathComponent("events.ndjson")
        try Data(
            """
            {"id":"a","ts":1,"type":"click","name":"ok"}
            {"id":"b","ts":"noon","type":"click","name":"ok"}
            {"id":"c","ts":3,"type":"click","name":"ok"
            {"id":"a","ts":1,"type":"click","name":"ok"}

            """.utf8
        ).write(to: input)
        let sent = try runCommand(
            Binaries.agent,
            [
                "send", "--to", serve.address, "--app-key", "shop", "--app-version", "1", "--spool",
                dir.appendingPathComponent("spool").path, input.path,
            ])
        #expect(sent.status == 0, "send failed: \(sent.err)")
        #expect(sent.out == "sent 2 events: 2 acknowledged (1 stored, 1 duplicate, 0 rejected), 2 invalid lines skipped\n")
        #expect(sent.err.contains("line 2: ts must be an integer, found a string\n"))
        #expect(sent.err.contains("line 3: not valid JSON"))

        // A client that does not check: the collector counts and keeps what breaks the contract.
        let client = try RawATLPClient(port: serve.port)
        #expect(try client.request(#"HELLO {"protocol":1,"appKey":"shop","appVersion":"1"}"#).hasPrefix("WELCOME "))
        let ack = try client.request(
            #"EVENTS {"batch":"b1","events":[{"id":"x1","ts":5,"type":"click","name":"fine"},"#
                + #"{"id":"x2","ts":"soon","type":"click","name":"late"},{"id":"x3","ts":5,"type":"tap","name":"odd"}]}"#)
        #expect(ack == #"ACK {"batch":"b1","stored":1,"duplicates":0,"rejected":2}"#)

        try serve.stop()
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == 2)
        #expect(report.total("rejected") == 2)
        #expect(report.rejectedCounts.count == 2)
        #expect(report.rejectedCounts.keys.contains { $0.contains("ts") })
        #expect(report.rejectedCounts.keys.contains { $0.contains("tap") })
    }

    @Test func aWrongTokenIsRefusedWithAClearMessage() throws {
        let dir = Fixtures.temporaryDirectory("e2e-token")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let serve = try ServeProcess(db: db, extra: ["--ingest-token", "right-token"])
        defer { serve.kill() }
        let input = dir.appendingPathComponent("events.ndjson")
        try Data(#"{"id":"a","ts":1,"type":"click","name":"ok"}"#.utf8).write(to: input)
        let args = [
            "send", "--to", serve.address, "--app-key", "shop", "--app-version", "1", "--spool",
            dir.appendingPathComponent("spool").path, input.path,
        ]

        let refused = try runCommand(Binaries.agent, args + ["--token", "wrong-token"])
        #expect(refused.status == 1)
        #expect(refused.out == "sent 1 event: 0 acknowledged (0 stored, 0 duplicates, 0 rejected), 0 invalid lines skipped, 1 not acknowledged\n")
        #expect(refused.err.contains("refused delivery"))
        #expect(refused.err.contains("unauthorized"))
        #expect(refused.err.contains("check --token"))

        // The event waited in the spool: the right token delivers it.
        let accepted = try runCommand(Binaries.agent, args + ["--token", "right-token"])
        #expect(accepted.status == 0, "send failed: \(accepted.err)")
        #expect(accepted.out.hasPrefix("sent 2 events: 2 acknowledged (1 stored, 1 duplicate, 0 rejected)"))
        #expect(accepted.out.hasSuffix(", 1 resent from an earlier run\n"))
    }

    @Test func aRecordedSessionReplaysThroughTheWholePipeline() throws {
        let dir = Fixtures.temporaryDirectory("e2e-replay")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("events.sqlite")
        let serve = try ServeProcess(db: db)
        defer { serve.kill() }
        let examples = Fixtures.repositoryRoot.appendingPathComponent("Examples")
        var args = ["replay", "--recording", examples.appendingPathComponent("recording.json").path, "--to", serve.address]
        for f in ["shop-events.json", "shop-labels.plist", "shop-rules.json"] {
            args += ["--config", examples.appendingPathComponent(f).path]
        }
        let first = try runCommand(Binaries.agent, args)
        #expect(first.status == 0, "replay failed: \(first.err)")
        #expect(
            first.out
                == "replay: 18 interactions: 19 events (1 kvc_error), session example-session-1: 19 acknowledged (19 stored, 0 duplicates, 0 rejected)\n"
        )
        // The recording names its session, so a second replay stores nothing new.
        let second = try runCommand(Binaries.agent, args)
        #expect(second.status == 0, "replay failed: \(second.err)")
        #expect(second.out.contains("19 acknowledged (0 stored, 19 duplicates, 0 rejected)"))

        try serve.stop()
        let report = try CollectorReportJSON(db: db)
        #expect(report.total("events") == 19)
        #expect(report.total("duplicates") == 19)
        #expect(report.total("rejected") == 0)
        #expect(report.nameCounts["kvc_error detail-share-sku"] == 1)
        #expect(report.nameCounts["list_item_click CTRL_EVENT_HOME_OPEN_PRODUCT"] == 2)
        #expect(report.nameCounts["page_enter EVENT_HOME_ENTER_PAGE"] == 2)
        #expect(report.nameCounts["click CTRL_EVENT_DETAIL_ADD_TO_CART"] == 1)
    }
}
