@testable import AgentCommands
import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import SystemCalls
import Testing
import TestSupport

@Suite struct DemoCommandTests {
    /// `demo --format` takes what `autotrack-collector report --format` takes, which it runs.
    @Test func theDemosFormatsAreTheReportsFormats() {
        #expect(DemoCommand.reportFormats == ReportFormat.allCases.map(\.rawValue))
    }

    @Test func theExamplesFolderHoldsTheBuiltInConfigurationByteForByte() throws {
        for d in DemoConfiguration.documents {
            let url = Fixtures.repositoryRoot.appendingPathComponent("Examples/\(d.file)")
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text == d.text + "\n", "Examples/\(d.file) differs from DemoConfiguration; regenerate one from the other")
        }
        _ = try DemoConfiguration.plan()
    }

    @Test func theDemoRunsEndToEndAgainstAnEmbeddedCollector() throws {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["demo", "--format", "json"], io: io)
        #expect(code == .success, "\(io.standardError)")
        let report = try JSONValue.parse(io.standardOutput)
        #expect(report["totals"]?["events"] == 26)
        #expect(report["totals"]?["rejected"] == 0)
        // The temporary database is removed on exit, so the report names no path.
        let database = try #require(report["database"]?.stringValue)
        #expect(database.contains("--db FILE") && !FileManager.default.fileExists(atPath: database))
        let kvc = try #require(report["kvcErrors"]?.arrayValue)
        #expect(kvc.count == 1)
        #expect(kvc.first?["rule"] == "detail-share-sku")
        // The rules were published to the embedded collector: its report shows the values they read.
        let rules = try #require(report["rules"]?.arrayValue)
        let open = try #require(rules.first { $0["id"] == "home-open-product" })
        #expect(open["values"] == [["value": "p-3", "count": 1], ["value": "p-9", "count": 1]])
        #expect(io.standardError.contains("demo: 25 interactions: 26 events (1 kvc_error), session s-"))
    }

    @Test func debugModePrintsOneLinePerInteractionWithTheMatchedRulesOrTheNearestRule() throws {
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["demo", "--debug", "--format", "json"], io: io)
        #expect(code == .success, "\(io.standardError)")
        let lines = io.standardError.split(separator: "\n").filter { $0.hasPrefix("autotrack debug: ") }
        #expect(lines.count == 25, "one line per interaction")
        // The favourite tap on the first row: the rule that matched and the value it read.
        #expect(
            lines.contains(
                "autotrack debug: click path=HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:0-0-0 code=HomeViewController#HomeViewController#onFavBtnPressed: matched: home-fav-product=\"p-1\""))
        // The favourite button of the detail page: no rule; the add-to-cart rule differs in the button's index.
        #expect(
            lines.contains(
                "autotrack debug: click path=DetailViewController(gift)-UIView-UIButton&0-0-0 code=DetailViewController#DetailViewController#onFavBtnPressed: no rule matched; nearest gift-cart-product differs at element 2: expected UIButton[2], got UIButton[0]"))
        // Without --debug, no such line.
        let quiet = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--format", "json"], io: quiet) == .success)
        #expect(!quiet.standardError.contains("autotrack debug:"))
    }

    @Test func usageErrorsAndBadConfigurationAreReported() throws {
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--format", "xml"], io: io) == .usage)
        #expect(io.standardError.contains("--format takes table, json, csv, html, not 'xml'"))
        let io2 = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--to", "127.0.0.1:7070", "--format", "json"], io: io2) == .usage)
        #expect(io2.standardError.contains("with --to, run 'autotrack-collector report'"))
        let io3 = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--config", "/nonexistent/rules.json"], io: io3) == .failure)
        #expect(io3.standardError.contains("/nonexistent/rules.json"))
    }

    @Test func demoDBKeepsTheEmbeddedCollectorsDatabase() throws {
        let db = Fixtures.temporaryDirectory("demo-db").appendingPathComponent("demo.sqlite").path
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--db", db, "--format", "json"], io: io) == .success, "\(io.standardError)")
        let report = try JSONValue.parse(io.standardOutput)
        #expect(report["database"]?.stringValue == db)
        #expect(FileManager.default.fileExists(atPath: db))
        let io2 = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--db", db, "--to", "127.0.0.1:7070"], io: io2) == .usage)
    }

    @Test func aFailedDemoToKeepsItsSpoolAndPrintsTheResendCommand() throws {
        // A port that refuses: a collector's, once it has stopped.
        let closed = EmbeddedCollector(dbPath: Fixtures.temporaryDirectory("demo-closed").appendingPathComponent("c.sqlite").path)
        let port = try closed.start().port
        closed.stop()
        let io = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--to", "127.0.0.1:\(port)", "--timeout", "0.5"], io: io) == .failure)
        let line = try #require(io.standardError.split(separator: "\n").first { $0.contains("resend them with: ") })
        let command = line.components(separatedBy: "resend them with: ")[1].split(separator: " ").map(String.init)
        #expect(command.first == "autotrack-agent")
        let spool = try #require(command.firstIndex(of: "--spool").map { command[$0 + 1] })
        #expect(FileManager.default.fileExists(atPath: spool))

        // The printed command, pointed at a collector that answers, delivers what the spool kept.
        let collector = EmbeddedCollector(dbPath: Fixtures.temporaryDirectory("demo-resend").appendingPathComponent("r.sqlite").path)
        let address = try collector.start()
        defer { collector.stop() }
        var args = Array(command.dropFirst())
        let to = try #require(args.firstIndex(of: "--to"))
        args[to + 1] = "127.0.0.1:\(address.port)"
        let resend = CapturedStreams()
        #expect(AgentCLI.group.main(args + ["--timeout", "20"], io: resend) == .success, "\(resend.standardError)")
        #expect(try collector.store?.totals(EventFilter()).events == 26)
    }
}
