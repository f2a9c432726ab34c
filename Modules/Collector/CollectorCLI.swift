public import CommandSupport

/// The `autotrack-collector` tool: every subcommand, in the order `--help` lists them.
public enum CollectorCLI {
    public static var group: CommandGroup {
        CommandGroup(
            name: "autotrack-collector",
            abstract: "receives events over ATLP/1, stores them in SQLite, serves rules and prints reports",
            commands: [
                ServeCommand.self,
                ReportCommand.self,
                FunnelCommand.self,
                RetentionCommand.self,
                AlertCommand.self,
                ExportCommand.self,
                TailCommand.self,
                RulesCommand.self,
                PruneCommand.self,
                CircleCommand.self,
            ])
    }
}
