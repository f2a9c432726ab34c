import Foundation
import SystemCalls
import Testing
import TestSupport
import ViewIdentity

/// Unmodified GTK 4 programs from Debian (`gtk-4-examples`), tracked through `autotrack-agent run`.
@Suite(
    .serialized)
struct DebianProgramTrackingTests {
    /// `gtk4-widget-factory` under `autotrack-agent run --out`, inside a D-Bus session of its own
    /// (it is a GApplication), on `display`.
    final class WidgetFactory {
        let process: GUIProcess
        let events: URL
        let trees: URL
        let window: String

        /// `configs`: configuration files for `run --config`. Another program of gtk-4-examples
        /// runs with `program` (its command line), `firstPage` (the tree waited for) and `title`;
        /// `environment` adds to the display's.
        init(
            display: VirtualDisplay, directory: URL, configs: [String] = [], options: [String] = [],
            program: [String] = ["gtk4-widget-factory"],
            appKey: String = "widget-factory", firstPage: String = "GtkBox(page1)", title: String = "Widget Factory",
            environment: [String: String] = [:]
        ) throws {
            events = directory.appendingPathComponent("events.ndjson")
            trees = directory.appendingPathComponent("trees")
            var command = [Built.agent, "run", "--app-key", appKey, "--out", events.path, "--tree-dir", trees.path]
            for c in configs { command += ["--config", c] }
            command += options + ["--"] + program
            if let bus = VirtualDisplay.executable("dbus-run-session") { command = [bus, "--"] + command }
            process = try GUIProcess(command[0], Array(command.dropFirst()), environment: display.environment(environment))
            _ = try WidgetTree.wait(directory: trees, page: firstPage)
            window = try display.window(titled: title)
        }

        deinit { process.kill() }

        /// gtk4-demo running its example `name` (`--run=NAME`) in a window titled `title`, which is
        /// its own page (`GtkWindow`), under the app key `demo`.
        static func demo(_ name: String, title: String, display: VirtualDisplay, directory: URL) throws -> WidgetFactory {
            guard VirtualDisplay.executable("gtk4-demo") != nil else { throw HarnessFailure("gtk4-demo is not installed (Tools/setup.sh)") }
            return try WidgetFactory(
                display: display, directory: directory, program: ["gtk4-demo", "--run=\(name)"], appKey: "demo", firstPage: "GtkWindow",
                title: title)
        }

        /// The factory's stack switcher buttons in the header bar (pages 1, 2, 3), from the window's tree.
        func switcherButtons() throws -> [[String: Any]] {
            let windowTree = try WidgetTree.wait(directory: trees, page: "GtkApplicationWindow")
            let buttons = windowTree.nodes.filter {
                $0["type"] as? String == "GtkToggleButton" && $0["frame"] != nil
                    && ($0["path"] as? String ?? "").contains("GtkStackSwitcher")
            }
            guard buttons.count == 3 else { throw HarnessFailure("\(buttons.count) stack switcher buttons, expected 3") }
            return buttons
        }

        /// Clicks the switcher's button of page `n` (1 to 3); the button's centre.
        @discardableResult
        func showPage(_ n: Int, on display: VirtualDisplay) throws -> (x: Int, y: Int) {
            let c = try WidgetTree.center(try switcherButtons()[n - 1])
            try display.click(window: window, x: c.x, y: c.y)
            return c
        }

        /// Ends the program with SIGTERM, sent to the processes under dbus-run-session (which does
        /// not pass signals on): the agent, which passes it to the program, and the program.
        func terminate() throws -> Int32 {
            func children(_ pid: Int32) -> [Int32] {
                // A /proc file reports no size: read it to its end.
                let data = FileHandle(forReadingAtPath: "/proc/\(pid)/task/\(pid)/children")?.readDataToEndOfFile() ?? Data()
                return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int32($0) }
            }
            let top = process.pid
            let below = children(top).flatMap { [$0] + children($0) }
            for pid in below.reversed() { try? Posix.sendSignal(SIGTERM, to: pid) }
            if below.isEmpty { process.kill(SIGTERM) }
            do {
                return try process.waitForExit(within: 30)
            } catch {
                throw HarnessFailure("SIGTERM to \(below) under \(top) did not end it: \(error)")
            }
        }
    }

    @Test func clicksAndPagesCarryTheMD5OfTheirPaths() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try WidgetFactory(display: display, directory: dir)
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkBox(page1)")

        let check = try page.node("id", "checkbutton1")
        let c = try WidgetTree.center(check)
        try display.click(window: app.window, x: c.x, y: c.y)
        // A plain button of the page: the first one with a label.
        let button = try #require(
            page.nodes.first {
                $0["type"] as? String == "GtkButton" && $0["frame"] != nil && !(($0["path"] as? String ?? "").contains("SpinButton"))
            })
        let b = try WidgetTree.center(button)
        try display.click(window: app.window, x: b.x, y: b.y)
        // Page 2 through the stack switcher in the header bar (outside the pages: the window's tree).
        let windowTree = try WidgetTree.wait(directory: app.trees, page: "GtkApplicationWindow")
        let switcher = try #require(
            windowTree.nodes.filter {
                $0["type"] as? String == "GtkToggleButton" && $0["frame"] != nil
                    && ($0["path"] as? String ?? "").contains("GtkStackSwitcher")
            }.dropFirst().first)
        let s = try WidgetTree.center(switcher)
        try display.click(window: app.window, x: s.x, y: s.y)
        _ = try WidgetTree.wait(directory: app.trees, page: "GtkOverlay(page2)")
        try display.xdotool(["key", "ctrl+q"])
        let status = try app.process.waitForExit(within: 30)
        #expect(status == 0, "stderr: \(app.process.standardError.suffix(2000))")

        let events = try ndjsonEvents(app.events)
        let toggled = events.first { $0.string("path") == check["path"] as? String }
        #expect(toggled?.string("type") == "value_changed")
        #expect(toggled?.string("name") == "GtkBox#checkbutton1#toggled")
        #expect(toggled?.string("viewId") == check["viewId"] as? String)
        let clicked = events.first { $0.string("type") == "click" }
        #expect(clicked?.string("path") == button["path"] as? String)
        #expect(events.contains { $0.string("type") == "value_changed" && $0.string("path") == switcher["path"] as? String })
        #expect(events.contains { $0.string("type") == "page_enter" && $0.string("path") == "GtkOverlay(page2)&0" })
        #expect(events.contains { $0.string("type") == "page_leave" && $0.string("path") == "GtkBox(page1)&0" && $0["duration"] != nil })
        var withPaths = 0
        for e in events {
            guard let path = e.string("path") else { continue }
            withPaths += 1
            #expect(e.string("viewId") == ViewID(canonical: path).hex, "\(path)")
        }
        #expect(withPaths >= 5)
    }

    /// Debug mode on an unmodified program (issue 26 point 5): a toggle a rule selects prints the
    /// rule and the value read; a click no rule selects prints the nearest rule of its view event
    /// and the first path element where they differ.
    @Test func debugModeExplainsMatchedAndUnmatchedInteractions() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory-debug")
        defer { try? FileManager.default.removeItem(at: dir) }
        let check = "GtkBox(page1)-GtkBox-GtkBox-GtkGrid-GtkCheckButton&0-0-0-0-0"
        let rules = dir.appendingPathComponent("rules.json")
        try Data(
            """
            {"rules": [
              {"id": "factory-check", "appKey": "widget-factory", "appVersion": "*", "viewEvent": "ValueChanged",
               "viewPath": "\(check)", "keyPath": "label", "keyName": "label"},
              {"id": "factory-other-button", "appKey": "widget-factory", "appVersion": "*", "viewEvent": "ButtonClick",
               "viewPath": "GtkBox(page1)-GtkBox-GtkBox-GtkBox-GtkButton&0-0-0-0-5", "keyPath": "label", "keyName": "label"}
            ]}
            """.utf8
        ).write(to: rules)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try WidgetFactory(display: display, directory: dir, configs: [rules.path], options: ["--debug"])
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkBox(page1)")
        let checkNode = try page.node("id", "checkbutton1")
        #expect(checkNode["path"] as? String == check, "the factory's page 1 as this test knows it")
        let c = try WidgetTree.center(checkNode)
        try display.click(window: app.window, x: c.x, y: c.y)
        let button = try page.node("id", "button224")
        let b = try WidgetTree.center(button)
        try display.click(window: app.window, x: b.x, y: b.y)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let lines = app.process.standardError.split(separator: "\n").map(String.init).filter { $0.hasPrefix("autotrack debug: ") }
        let toggled = try #require(lines.first { $0.contains("path=\(check)") }, "stderr: \(app.process.standardError.suffix(3000))")
        #expect(toggled.contains(#/ matched: factory-check="[^"]+"/#), "\(toggled)")
        let clicked = try #require(lines.first { $0.contains("path=\(button["path"] as? String ?? "?")") })
        #expect(
            clicked.contains("no rule matched; nearest factory-other-button differs at element")
                && clicked.contains("expected GtkButton[5], got GtkButton[0]"), "\(clicked)")
    }

    /// GTK counts a widget's same-named siblings through its sibling links by type
    /// (`GtkWidgetNode.sameNameSiblingsBefore`); every path the agent writes into a tree equals
    /// the path rule 4's own count gives over the same tree read back (`TreeNode`, which asks each
    /// sibling its name): in the window's tree (header bar, stack switcher, pages) and a page's.
    @Test func everyWrittenPathIsTheOneTheRulesGiveForTheTreeReadBack() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory-paths")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try WidgetFactory(display: display, directory: dir)
        _ = try WidgetTree.wait(directory: app.trees, page: "GtkApplicationWindow")
        try display.xdotool(["key", "ctrl+q"])
        _ = try app.process.waitForExit(within: 30)

        var compared = 0
        for page in ["GtkApplicationWindow", "GtkBox(page1)"] {
            let file = app.trees.appendingPathComponent(page + ".json")
            let bytes = [UInt8](try Data(contentsOf: file))
            let written = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            let tree = try ViewTree(json: bytes)
            func compare(_ json: [String: Any], _ node: TreeNode) {
                #expect(json["path"] as? String == ViewPath(of: node).canonical, "\(page) \(node.position)")
                compared += 1
                let children = json["children"] as? [[String: Any]] ?? []
                #expect(children.count == node.children.count, "\(page) \(node.position)")
                for (c, n) in zip(children, node.children) { compare(c, n) }
            }
            withExtendedLifetime(tree) { compare(written, tree.root) }
        }
        // The window alone holds a few hundred widgets.
        #expect(compared > 300, "\(compared) nodes compared")
    }

    @Test func aFewHundredRandomClicksDoNotCrashTheProgram() throws {
        let dir = Fixtures.temporaryDirectory("gtk-random")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try WidgetFactory(display: display, directory: dir)
        let geometry = try display.xdotool(["getwindowgeometry", "--shell", app.window])
        func value(_ key: String) -> Int {
            geometry.split(separator: "\n").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? 0
        }
        let width = max(value("WIDTH"), 200)
        let height = max(value("HEIGHT"), 200)
        var random = SeededGenerator(seed: 11)
        // 300 clicks in batches of 30 per xdotool run, away from the header bar's close button.
        for _ in 0..<10 {
            var arguments: [String] = []
            for _ in 0..<30 {
                let x = Int.random(in: 0..<width, using: &random)
                let y = Int.random(in: 60..<height, using: &random)
                arguments += ["mousemove", "--window", app.window, String(x), String(y), "click", "1", "sleep", "0.02"]
            }
            try display.xdotool(arguments, within: 60)
            #expect(app.process.isRunning, "the program ended during random clicks: \(app.process.standardError.suffix(2000))")
            if !app.process.isRunning { break }
        }
        // Dialogs the clicks opened may hold the keyboard: end it with SIGTERM, which run passes on.
        let status = try app.terminate()
        #expect(status == 0 || status == 128 + SIGTERM, "exit \(status): \(app.process.standardError.suffix(2000))")
        let events = try ndjsonEvents(app.events)
        #expect(events.count > 10)
        for e in events {
            if let path = e.string("path") { #expect(e.string("viewId") == ViewID(canonical: path).hex) }
        }
    }
}

/// `autotrack-agent run` with a program that is not a GTK 4 application.
@Suite struct RunUntrackedProgramTests {
    @Test func aNonGtkProgramRunsUntouchedWithOneLineAndItsExitStatus() throws {
        let p = try GUIProcess(
            Built.agent, ["run", "--", "/bin/sh", "-c", "echo out; exit 3"], environment: ProcessInfo.processInfo.environment)
        #expect(try p.waitForExit(within: 30) == 3)
        #expect(p.standardOutput == "out\n")
        let lines = p.standardError.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("not a GTK 4 application") == true)
    }

    @Test func aProgramThatIsNotThereIsAFailureAndNoArgumentsAUsageError() throws {
        let missing = try GUIProcess(Built.agent, ["run", "--", "no-such-program-here"], environment: ProcessInfo.processInfo.environment)
        #expect(try missing.waitForExit(within: 30) == 1)
        #expect(missing.standardError.contains("no executable 'no-such-program-here'"))
        let usage = try GUIProcess(Built.agent, ["run"], environment: ProcessInfo.processInfo.environment)
        #expect(try usage.waitForExit(within: 30) == 2)
    }
}
