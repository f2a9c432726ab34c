import Foundation
import SystemCalls
import Testing
import TestSupport

/// A tracked program ended from outside (docs/gtk.md "Ending"): SIGTERM, SIGINT or SIGHUP to the
/// unmodified shop leaves its page and reports `app_end` before it dies of that signal, and the
/// events reach the collector. On a fresh home (no `~/.local/state` yet) the default spool is
/// made with its parents, 0700, so the program is tracked, not run untracked.
@Suite(.serialized)
struct EndingSignalTests {
    /// The tracked program: the child `autotrack-agent run` started (it forwards SIGTERM and
    /// SIGINT, not SIGHUP, so the signal goes to the program itself, as a session's end would).
    static func program(of agent: GUIProcess) throws -> pid_t {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let children = "/proc/\(agent.pid)/task/\(agent.pid)/children"
            if let text = try? String(contentsOfFile: children, encoding: .utf8), let pid = text.split(separator: " ").first.flatMap({ pid_t($0) }) {
                return pid
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("autotrack-agent run started no program within 20 s")
    }

    @Test(arguments: [SIGTERM, SIGINT, SIGHUP])
    func aProgramEndedByASignalLeavesItsPageReportsAppEndAndDiesOfIt(_ signal: Int32) throws {
        let dir = Fixtures.temporaryDirectory("gtk-signal-\(signal)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        var environment = display.environment()
        environment["HOME"] = home.path
        environment["XDG_STATE_HOME"] = nil
        // No --spool: the default, under the fresh home.
        let agent = try GUIProcess(
            Built.agent,
            ["run", "--to", collector.address.description, "--app-key", "shop", "--app-version", "1.2.0", "--", Built.shop],
            environment: environment)
        defer { agent.kill() }
        let started = try collector.events(atLeast: 2, within: 30)
        #expect(started.map { $0.string("type") ?? "" } == ["app_start", "page_enter"], "\(agent.standardError)")
        #expect(!agent.standardError.contains("runs untracked"), "\(agent.standardError)")

        let shop = try Self.program(of: agent)
        try Posix.sendSignal(signal, to: shop)
        let status = try agent.waitForExit(within: 30)
        #expect(status == 128 + signal, "run exits as its program did: killed by signal \(signal); stderr: \(agent.standardError)")
        let events = try collector.events(atLeast: 4, within: 20)
        #expect(events.map { $0.string("type") ?? "" } == ["app_start", "page_enter", "page_leave", "app_end"])
        #expect(events[2].string("path") == "GtkBox(home)&0")

        for folder in [".local", ".local/state", ".local/state/autotrack", ".local/state/autotrack/spool", ".local/state/autotrack/spool/shop"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent(folder).path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700, "\(folder)")
        }
    }
}
