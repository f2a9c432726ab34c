public import CommandSupport
import SystemCalls

/// The `autotrack-agent` tool: every subcommand, in the order `--help` lists them.
public enum AgentCLI {
    /// The tool's entry: under a file-size limit (`ulimit -f`) a write that passes it fails with
    /// `EFBIG`, which the spool reports, instead of SIGXFSZ killing the tool without a word.
    public static func main(_ argv: [String]) -> ExitCode {
        Posix.ignoreFileSizeLimitSignal()
        return group.main(argv)
    }

    public static var group: CommandGroup {
        CommandGroup(
            name: "autotrack-agent",
            abstract: "sends tracked events, runs the demo shop, and computes paths, digests, matches, checks and path drift",
            commands: [
            DemoCommand.self,
            SendCommand.self,
            ReplayCommand.self,
            PathCommand.self,
            MD5Command.self,
            MatchCommand.self,
            CheckCommand.self,
            DriftCommand.self,
            InventoryCommand.self,
            RunCommand.self,
            ])
    }
}
