import AgentCommands
import Collector
import CommandSupport
import Testing

/// What both tools share: `--version`, unknown options named before the errors they cause.
@Suite struct CommandLineUsageTests {
    func run(_ group: CommandGroup, _ args: [String]) -> (code: Int32, out: String, err: String) {
        let io = CapturedStreams()
        let code = group.main(args, io: io)
        return (code.rawValue, io.standardOutput, io.standardError)
    }

    @Test func bothToolsPrintOneVersion() {
        let agent = run(AgentCLI.group, ["--version"])
        let collector = run(CollectorCLI.group, ["--version"])
        #expect(agent.code == 0 && collector.code == 0)
        #expect(agent.out == "autotrack-agent \(toolVersion)\n")
        #expect(collector.out == "autotrack-collector \(toolVersion)\n")
        #expect(toolVersion.split(separator: ".").count == 3)
    }

    @Test func aMisspeltOptionIsNamedBeforeTheMissingOne() {
        let r = run(AgentCLI.group, ["send", "--too", "127.0.0.1:1", "--app-key", "shop", "--app-version", "1.0.0"])
        #expect(r.code == 2)
        #expect(r.err.hasPrefix("autotrack-agent send: unknown option '--too'"))
        #expect(!r.err.contains("missing required"))
        let missing = run(AgentCLI.group, ["send", "--app-key", "shop", "--app-version", "1.0.0"])
        #expect(missing.code == 2)
        #expect(missing.err.contains("--to"))
        let serve = run(CollectorCLI.group, ["serve", "--listen=127.0.0.1:0", "--dbb", "x.sqlite"])
        #expect(serve.code == 2)
        #expect(serve.err.hasPrefix("autotrack-collector serve: unknown option '--dbb'"))
    }
}
