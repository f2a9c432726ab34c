import AgentCommands
import CommandSupport
import EventModel
import Foundation
import Testing
import TestSupport

@Suite struct DemoCommandTests {
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
        let kvc = try #require(report["kvcErrors"]?.arrayValue)
        #expect(kvc.count == 1)
        #expect(kvc.first?["rule"] == "detail-share-sku")
        // The rules were published to the embedded collector: its report shows the values they read.
        let rules = try #require(report["rules"]?.arrayValue)
        let open = try #require(rules.first { $0["id"] == "home-open-product" })
        #expect(open["values"] == [["value": "p-3", "count": 1], ["value": "p-9", "count": 1]])
        #expect(io.standardError.hasPrefix("demo: 25 interactions: 26 events (1 kvc_error), session s-"))
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
}
