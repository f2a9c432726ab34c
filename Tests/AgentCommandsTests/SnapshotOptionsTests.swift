@testable import AgentCommands
import CommandSupport
import Foundation
import ProgramLaunch
import Testing

/// `--snapshots` on `run` and `demo` (docs/agent.md "Snapshots").
@Suite struct SnapshotOptionsTests {
    @Test func runSnapshotsReachesThePreloadAndNeedsACollector() throws {
        var arguments = Arguments(["--to", "127.0.0.1:1", "--snapshots", "--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        let environment = command.settings.environment
        #expect(environment[LaunchSettings.snapshotsKey] == "1")
        #expect(LaunchSettings(environment: environment, program: "autotrack-gtk-shop") == command.settings)
        var without = Arguments(["--to", "127.0.0.1:1", "--", "autotrack-gtk-shop"])
        #expect(try RunCommand(arguments: &without).settings.environment[LaunchSettings.snapshotsKey] == nil)
        var noCollector = Arguments(["--snapshots", "--", "autotrack-gtk-shop"])
        #expect(throws: UsageError.self) { try RunCommand(arguments: &noCollector) }
    }
}
