@testable import AgentCommands
import CommandSupport
import Foundation
import ProgramLaunch
import Testing
import TestSupport
import Tracker

/// `run`'s options reach the preload library as the environment its tracker reads.
@Suite struct RunCommandTests {
    @Test func configRefreshReachesTheTrackerThroughTheEnvironment() throws {
        var arguments = Arguments(["--app-key", "shop", "--config-refresh", "5", "--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        let environment = command.settings.environment
        #expect(environment[LaunchSettings.configRefreshKey] == "5.0")
        // Parsed once, by the tracker, which checks it: the launch settings only write it.
        #expect(LaunchSettings(environment: environment, program: "autotrack-gtk-shop").configRefresh == nil)
        let settings = try TrackerSettings().applying(environment: environment)
        #expect(settings.configRefresh == .seconds(5))
    }

    @Test func debugReachesTheTrackerThroughTheEnvironment() throws {
        var arguments = Arguments(["--debug", "--", "autotrack-gtk-shop"])
        let environment = try RunCommand(arguments: &arguments).settings.environment
        #expect(environment[LaunchSettings.debugKey] == "1")
        #expect(LaunchSettings(environment: environment, program: "autotrack-gtk-shop").debug)
        #expect(try TrackerSettings().applying(environment: environment).debugOutput != nil)
        var plain = Arguments(["--", "autotrack-gtk-shop"])
        let quiet = try RunCommand(arguments: &plain).settings.environment
        #expect(quiet[LaunchSettings.debugKey] == nil)
        #expect(try TrackerSettings().applying(environment: quiet).debugOutput == nil)
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

/// What `run` says about the events its program left unsent.
@Suite struct RunCommandSpoolTests {
    @Test func atExitItSaysHowManyEventsWaitInWhichSpool() throws {
        let spool = Fixtures.temporaryDirectory("run-spool").path
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let event = #"{"id":"a","ts":1,"type":"click","name":"one"}"# + "\n"
        try Data(String(repeating: event, count: 3).utf8).write(to: URL(fileURLWithPath: spool + "/batch-00000000000000000001.log"))
        try Data((event + event + "{\"id\":").utf8).write(to: URL(fileURLWithPath: spool + "/open.log"))  // a torn last line
        let io = CapturedStreams()
        let code = AgentCLI.group.main(["run", "--to", "127.0.0.1:1", "--spool", spool, "--", "/bin/true"], io: io)
        #expect(code == .success)
        #expect(
            io.standardError.contains(
                "autotrack-agent run: 5 events wait in the spool \(spool), not acknowledged by the collector (127.0.0.1:1); "
                    + "the next run with this spool sends them"), "\(io.standardError)")

        let empty = Fixtures.temporaryDirectory("run-spool-empty").path
        let quiet = CapturedStreams()
        #expect(AgentCLI.group.main(["run", "--to", "127.0.0.1:1", "--spool", empty, "--", "/bin/true"], io: quiet) == .success)
        #expect(!quiet.standardError.contains("wait in the spool"))
    }
}
