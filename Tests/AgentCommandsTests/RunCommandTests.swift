@testable import AgentCommands
import CommandSupport
import ProgramLaunch
import Testing
import Tracker

/// `run`'s options reach the preload library as the environment its tracker reads.
@Suite struct RunCommandTests {
    @Test func configRefreshReachesTheTrackerThroughTheEnvironment() throws {
        var arguments = Arguments(["--app-key", "shop", "--config-refresh", "5", "--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        let environment = command.settings.environment
        #expect(environment[LaunchSettings.configRefreshKey] == "5.0")
        #expect(LaunchSettings(environment: environment, program: "autotrack-gtk-shop").configRefresh == 5)
        let settings = try TrackerSettings().applying(environment: environment)
        #expect(settings.configRefresh == .seconds(5))
    }

    @Test func withoutTheOptionTheLibraryDefaultStays() throws {
        var arguments = Arguments(["--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        #expect(command.settings.environment[LaunchSettings.configRefreshKey] == nil)
        #expect(try TrackerSettings().applying(environment: command.settings.environment).configRefresh == TrackerSettings().configRefresh)
    }

    @Test func aConfigRefreshOutOfRangeIsAUsageError() {
        var arguments = Arguments(["--config-refresh", "0", "--", "autotrack-gtk-shop"])
        #expect(throws: UsageError.self) { try RunCommand(arguments: &arguments) }
    }
}
