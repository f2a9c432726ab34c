import AgentCommands
import Collector
import CommandSupport
import EventStore
import Foundation
import Testing
import TestSupport

@Suite struct ReplayCommandTests {
    var examples: URL { Fixtures.repositoryRoot.appendingPathComponent("Examples") }

    func configArgs() -> [String] {
        ["shop-events.json", "shop-labels.plist", "shop-rules.json"].flatMap {
            ["--config", examples.appendingPathComponent($0).path]
        }
    }

    @Test func theExampleSessionReplaysToACollector() throws {
        let dir = Fixtures.temporaryDirectory("replay-cmd")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = EmbeddedCollector(dbPath: dir.appendingPathComponent("db.sqlite").path)
        let address = try collector.start()
        defer { collector.stop() }
        let io = CapturedStreams()
        let code = AgentCLI.group.main(
            ["replay", "--recording", examples.appendingPathComponent("recording.json").path, "--to", "\(address)"]
                + configArgs(), io: io)
        #expect(code == .success, "\(io.standardError)")
        #expect(
            io.standardOutput
                == "replay: 18 interactions: 19 events (1 kvc_error), session example-session-1: 19 acknowledged (19 stored, 0 duplicates, 0 rejected)\n"
        )
        let counts = try #require(try collector.store?.eventCounts(.all))
        #expect(counts.first { $0.name == "CTRL_EVENT_HOME_OPEN_PRODUCT" }?.count == 2)
    }

    @Test func aBrokenSessionIsRejectedBeforeAnythingIsSent() throws {
        let dir = Fixtures.temporaryDirectory("replay-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let session = dir.appendingPathComponent("s.json")
        try Data(#"{"appKey":"shop","appVersion":"1.2.0","steps":[{"tap":"fav","action":"a:"}]}"#.utf8).write(to: session)
        let io = CapturedStreams()
        // Nothing listens on port 1: the session is checked first, so the failure is about the session.
        let code = AgentCLI.group.main(["replay", "--recording", session.path, "--to", "127.0.0.1:1"] + configArgs(), io: io)
        #expect(code == .failure)
        #expect(io.standardError.contains("steps[0] acts on node \"fav\" before any tree is shown"))
        let io2 = CapturedStreams()
        #expect(AgentCLI.group.main(["replay", "--recording", session.path, "--to", "127.0.0.1:1"], io: io2) == .usage)
        #expect(io2.standardError.contains("--config"))
    }
}
