import CommandSupport

/// The `autotrack-agent` tool: every subcommand, in the order `--help` lists them.
public enum AgentCLI {
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
