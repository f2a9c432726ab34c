import EventModel
import EventStore
import Foundation
import SQLiteStore
import Testing
import TestSupport

/// Issue 40's usability check on an app nobody here wrote: unmodified `gtk4-widget-factory` under
/// `autotrack-agent run --snapshots` into the built `serve --studio`, and a product person's task
/// list in headless Chromium (Tests/StudioTests/browser/studio_release.py): find the page by its
/// name, point at a toggle's label and get the toggle, see its real count, save, rename the page,
/// build a two-step funnel and get the command line's numbers. Then a simulated release (2.0: the
/// toggle and its sibling swapped places, a picture and clicks of it) shows the definition broken
/// with the toggle's new path suggested; applying it makes both versions count. A screenshot of
/// each step goes to docs/images/ when STUDIO_SCREENSHOT_UPDATE=1 (always taken and checked).
@Suite(.serialized, .timeLimit(.minutes(6)))
struct StudioReleaseTests {
    static let app = "widget-factory"
    static let page = "GtkBox(page1)"

    static func wait<T>(_ what: String, within seconds: Double = 30, _ value: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let v = try value() { return v }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessFailure("\(what) did not happen within \(seconds) s")
    }

    /// `autotrack-collector ARGS`: its exit status and standard output.
    static func collector(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let p = try GUIProcess(Built.collector, arguments, environment: ProcessInfo.processInfo.environment)
        let status = try p.waitForExit(within: 60)
        return (status, p.standardOutput)
    }

    /// `node`'s subtree with the index part of every path moved from `old` to `new` (the same names).
    static func repath(_ node: [String: Any], from old: String, to new: String) -> [String: Any] {
        var n = node
        if let path = n["path"] as? String, let amp = path.firstIndex(of: "&") {
            let indexes = String(path[path.index(after: amp)...])
            if indexes == old || indexes.hasPrefix(old + "-") {
                n["path"] = String(path[...amp]) + new + indexes.dropFirst(old.count)
            }
        }
        if let children = n["children"] as? [[String: Any]] { n["children"] = children.map { repath($0, from: old, to: new) } }
        return n
    }

    /// The release's tree: the nodes with ids `a` and `b` (siblings of one type) swap places among
    /// their siblings, so each takes the other's path; where they are drawn stays.
    static func swapped(_ node: [String: Any], _ a: String, _ b: String) -> [String: Any] {
        var n = node
        guard var children = n["children"] as? [[String: Any]] else { return n }
        if let i = children.firstIndex(where: { $0["id"] as? String == a }), let j = children.firstIndex(where: { $0["id"] as? String == b }) {
            let pi = (children[i]["path"] as! String).split(separator: "&")[1], pj = (children[j]["path"] as! String).split(separator: "&")[1]
            let x = repath(children[i], from: String(pi), to: String(pj)), y = repath(children[j], from: String(pj), to: String(pi))
            children[i] = y
            children[j] = x
        } else {
            children = children.map { swapped($0, a, b) }
        }
        n["children"] = children
        return n
    }

    @Test func aProductPersonDefinesChecksAndAnalysesOnTheWidgetFactory() throws {
        let dir = Fixtures.temporaryDirectory("gtk-studio-release")
        defer { try? FileManager.default.removeItem(at: dir) }
        let shots = ProcessInfo.processInfo.environment["STUDIO_SCREENSHOT_UPDATE"] == "1"
            ? Fixtures.docsDirectory.appendingPathComponent("images") : dir.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let collector = try StudioCollector(directory: dir, token: "studio-admin")
        let display = try VirtualDisplay()
        defer { display.stop() }
        var command = [
            Built.agent, "run", "--to", collector.atlp, "--app-key", Self.app, "--app-version", "1.0", "--snapshots",
            "--spool", dir.appendingPathComponent("spool").path, "--", "gtk4-widget-factory",
        ]
        if let bus = VirtualDisplay.executable("dbus-run-session") { command = [bus, "--"] + command }
        let factory = try GUIProcess(command[0], Array(command.dropFirst()), environment: display.environment())
        defer { factory.kill() }

        // 1.0: its picture; the toggle and the check button clicked (3 and 2 times), each stored before the next.
        let listed = try Self.wait("a picture of \(Self.page)") {
            let all = try collector.json("GET", "/api/snapshots?app=\(Self.app)")["snapshots"] as? [[String: Any]] ?? []
            return all.first { $0["page"] as? String == Self.page }
        }
        let pictureID = try #require((listed["id"] as? NSNumber)?.intValue)
        let treeObject = try #require(try collector.json("GET", "/api/snapshots/\(pictureID)")["tree"] as? [String: Any])
        let tree = WidgetTree(root: treeObject)
        let toggle = try tree.node("id", "togglebutton1"), check = try tree.node("id", "checkbutton1")
        let togglePath = try #require(toggle["path"] as? String), checkPath = try #require(check["path"] as? String)
        func label(_ node: [String: Any]) throws -> [String: Any] {
            try #require((node["children"] as? [[String: Any]])?.first { $0["type"] as? String == "GtkLabel" }, "\(node["path"] ?? "?") has no label")
        }
        let window = try display.window(titled: "Widget Factory", of: factory)
        var clicks: [String: Int] = [:]
        for (node, path) in [(toggle, togglePath), (check, checkPath), (toggle, togglePath), (check, checkPath), (toggle, togglePath)] {
            let c = try WidgetTree.center(node)
            try display.click(window: window, x: c.x, y: c.y)
            clicks[path, default: 0] += 1
            let wanted = clicks[path]!
            _ = try Self.wait("click \(wanted) on \(path) stored") {
                try storedEvents(db: collector.db).count(where: { $0.string("path") == path }) >= wanted ? true : nil
            }
        }
        try display.xdotool(["key", "ctrl+q"])
        #expect(try factory.waitForExit(within: 30) == 0, "stderr: \(factory.standardError.suffix(2000))")
        let stored = try storedEvents(db: collector.db)
        let toggles = stored.filter { $0.string("path") == togglePath }, checks = stored.filter { $0.string("path") == checkPath }

        // The person's tasks, in Chromium: by the page's name and the controls' labels only.
        let toggleLabel = try WidgetTree.center(try label(toggle)), checkLabel = try WidgetTree.center(try label(check))
        let plan: JSONValue = [
            "app": .string(Self.app), "name": .string(Self.page), "rename": "Widgets",
            "controls": [
                ["id": "toggle", "name": "Toggle", "label": [.int(Int64(toggleLabel.x)), .int(Int64(toggleLabel.y))]],
                ["id": "check", "name": "Check", "label": [.int(Int64(checkLabel.x)), .int(Int64(checkLabel.y))]],
            ],
        ]
        let driver = ["--url", collector.studio, "--token", collector.token, "--plan", plan.jsonText, "--shots", shots.path]
        let define = try BrowserDriver.run(driver: "studio_release.py", arguments: driver + ["--phase", "define"], timeout: 240)
        #expect(define.exitCode == 0, "\(define.seen.jsonText)\n\(define.stderr.suffix(3000))")
        #expect(define.seen["consoleErrors"] == [], "\(define.seen["consoleErrors"]?.jsonText ?? "")")
        let seen = try #require(define.seen["define"])
        #expect(seen["page"] == .string(Self.page))
        let controls = seen["controls"]?.arrayValue ?? []
        #expect(controls.count == 2)
        for (c, (path, events)) in zip(controls, [(togglePath, toggles), (checkPath, checks)]) {
            #expect(c["chosen"] == .string(path), "pointing at the label chose \(c["chosen"]?.jsonText ?? "?"), not \(path)")
            #expect(c["preview"] == .string(String(events.count)), "\(c.jsonText)")
            #expect(c["listed"] == .string("\(events.count) in 30 days"), "\(c.jsonText)")
            #expect(c["facts"]?.stringValue?.hasPrefix("\(events.count) stored interaction") == true, "\(c.jsonText)")
        }
        #expect(toggles.count == 3 && checks.count == 2)
        let pages = try collector.json("GET", "/api/pages?app=\(Self.app)")["pages"] as? [[String: Any]] ?? []
        #expect(pages.first { $0["page"] as? String == Self.page }?["name"] as? String == "Widgets")
        // The funnel the page drew is the command line's.
        let cli = try Self.collector([
            "funnel", "--db", collector.db, "--app", Self.app, "--step", "rule:toggle", "--step", "rule:check", "--within", "1d", "--by", "device",
            "--format", "json",
        ])
        #expect(cli.status == 0)
        let actors = (try JSONValue.parse(cli.out)["steps"]?.arrayValue ?? []).compactMap(\.["actors"])
        #expect(seen["funnel"]?.arrayValue == actors, "page \(seen["funnel"]?.jsonText ?? "?"), funnel \(cli.out)")
        #expect(actors.first == 1)
        #expect(seen["funnelBars"] == 2)
        // Its trend per day is report --rule's days; its retention table is retention --format json's.
        let report = try Self.collector(["report", "--db", collector.db, "--rule", "toggle", "--format", "json"])
        var days: [String: JSONValue] = [:]
        for d in try JSONValue.parse(report.out)["days"]?.arrayValue ?? [] { days[d["day"]?.stringValue ?? ""] = d["events"] }
        let shownDays = (seen["trendDays"]?.objectValue.map { Array($0) } ?? []).filter { $0.value != 0 }
        #expect(Dictionary(uniqueKeysWithValues: shownDays.map { ($0.key, $0.value) }) == days, "page \(seen["trendDays"]?.jsonText ?? "?"), report \(report.out)")
        #expect(seen["trendTotal"] == 3)
        let retention = try Self.collector([
            "retention", "--db", collector.db, "--app", Self.app, "--start", "rule:toggle", "--return", "rule:check", "--by", "device",
            "--format", "json",
        ])
        #expect((seen["retention"]?["cohorts"]?.arrayValue ?? []).first?["actors"] == 1, "\(seen["retention"]?.jsonText ?? "?")")
        #expect(try JSONValue.parse(retention.out) == seen["retention"], "page \(seen["retention"]?.jsonText ?? "?"), retention \(retention.out)")

        // 2.0, a release that swapped togglebutton1 and togglebutton3: its picture and its clicks.
        let moved = Self.swapped(treeObject, "togglebutton1", "togglebutton3")
        let newToggle = try #require(try WidgetTree(root: moved).node("id", "togglebutton1")["path"] as? String)
        #expect(newToggle != togglePath)
        let png = try collector.request("GET", "/api/snapshots/\(pictureID)/image").body
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        // Written to the database while no collector runs on it (one store owns its ingest), then served again.
        #expect(try collector.stop() == 0, "stderr: \(collector.process.standardError.suffix(2000))")
        let store = try SQLiteEventStore(path: collector.db)
        _ = try store.storeSnapshot(
            Snapshot(
                appKey: Self.app, appVersion: "2.0", page: Self.page, capturedAt: now, receivedAt: now,
                width: (listed["width"] as? NSNumber)?.intValue ?? 0, height: (listed["height"] as? NSNumber)?.intValue ?? 0, png: [UInt8](png),
                tree: String(decoding: try JSONSerialization.data(withJSONObject: moved), as: UTF8.self)))
        func event(_ original: [String: Any], _ n: Int, path: String) throws -> JSONValue {
            let props = try JSONSerialization.data(withJSONObject: original.props)
            return [
                "id": .string("release-\(n)"), "ts": .int(now + Int64(n)), "type": .string(original.string("type") ?? ""),
                "name": .string(original.string("name") ?? ""), "path": .string(path), "device": "d-release",
                "props": try JSONValue.parse(String(decoding: props, as: UTF8.self)),
            ]
        }
        _ = try store.append(
            EventBatch(
                appKey: Self.app, appVersion: "2.0",
                events: [try event(toggles[0], 0, path: newToggle), try event(toggles[0], 1, path: newToggle), try event(checks[0], 2, path: checkPath)]))
        store.close()
        let served = try StudioCollector(directory: dir, token: "studio-admin")
        let alert = try Self.collector(["alert", "--db", served.db, "--definitions"])
        #expect(alert.status == 1 && alert.out.contains("\(Self.app) toggle (\"Toggle\") broken in 2.0"), "\(alert.out)")
        #expect(alert.out.contains("suggest adding \(newToggle)") && !alert.out.contains(" check "), "\(alert.out)")

        let again = ["--url", served.studio, "--token", served.token, "--plan", plan.jsonText, "--shots", shots.path, "--phase", "release"]
        let release = try BrowserDriver.run(driver: "studio_release.py", arguments: again, timeout: 240)
        #expect(release.exitCode == 0, "\(release.seen.jsonText)\n\(release.stderr.suffix(3000))")
        #expect(release.seen["consoleErrors"] == [], "\(release.seen["consoleErrors"]?.jsonText ?? "")")
        let after = try #require(release.seen["release"])
        #expect(after["brokenVersion"] == "2.0")
        #expect(after["suggestion"] == .string(newToggle))
        #expect(after["healthBefore"] == ["1.0:ok", "2.0:broken"])
        #expect(after["healthAfter"] == ["1.0:ok", "2.0:ok"])
        let health = try served.json("GET", "/api/rules/toggle/health")["versions"] as? [[String: Any]] ?? []
        #expect(health.map { ($0["count"] as? NSNumber)?.intValue ?? -1 } == [3, 2], "\(health)")
        #expect(try Self.collector(["alert", "--db", served.db, "--definitions"]).status == 0)
        // Every step's screenshot, a PNG.
        let names = (define.seen["shots"]?.arrayValue ?? []) + (release.seen["shots"]?.arrayValue ?? [])
        #expect(names.count == 7, "\(names)")
        for name in names.compactMap(\.stringValue) {
            #expect(FileManager.default.contents(atPath: shots.appendingPathComponent(name).path)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        }
        #expect(try served.stop() == 0, "stderr: \(served.process.standardError.suffix(2000))")
    }
}
