import Foundation
import Testing
import TestSupport

/// Issue 24's acceptance over an app nobody here wrote: unmodified `gtk4-widget-factory` under
/// `autotrack-agent run --snapshots`, into the built `autotrack-collector serve --studio`. Its
/// picture is listed and served as a PNG of the listed size; widgets are clicked at points inside
/// their frames in that picture; definitions made after the clicks count exactly the clicks the
/// store holds on their paths, and the picture's heatmap is exactly the store's interactions per
/// path of the picture.
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct StudioCircleTests {
    static let app = "widget-factory"
    /// The definition's `viewEvent` for the wire type its clicks are stored with (docs/config.md §3).
    static let viewEvents = ["click": "ButtonClick", "value_changed": "ValueChanged"]

    /// Polls `value` every 100 ms until it is non-nil or `seconds` pass.
    static func wait<T>(_ what: String, within seconds: Double = 30, _ value: () throws -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let v = try value() { return v }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessFailure("\(what) did not happen within \(seconds) s")
    }

    @Test func theWidgetFactoryIsCircledAndItsStoredClicksAreCountedAndMapped() throws {
        let dir = Fixtures.temporaryDirectory("gtk-studio-factory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try StudioCollector(directory: dir, token: "studio-admin")
        let display = try VirtualDisplay()
        defer { display.stop() }
        var command = [
            Built.agent, "run", "--to", collector.atlp, "--app-key", Self.app, "--snapshots",
            "--spool", dir.appendingPathComponent("spool").path, "--", "gtk4-widget-factory",
        ]
        if let bus = VirtualDisplay.executable("dbus-run-session") { command = [bus, "--"] + command }
        let factory = try GUIProcess(command[0], Array(command.dropFirst()), environment: display.environment())
        defer { factory.kill() }

        // The picture of page 1, as the studio lists it, with its tree.
        let listed = try Self.wait("a picture of page 1 in the studio") {
            let all = try collector.json("GET", "/api/snapshots?app=\(Self.app)")["snapshots"] as? [[String: Any]] ?? []
            return all.first { $0["page"] as? String == "GtkBox(page1)" }
        }
        let id = try #require((listed["id"] as? NSNumber)?.intValue)
        let width = try #require((listed["width"] as? NSNumber)?.intValue)
        let height = try #require((listed["height"] as? NSNumber)?.intValue)
        #expect(listed["appKey"] as? String == Self.app)
        let image = try collector.request("GET", "/api/snapshots/\(id)/image")
        #expect(image.status == 200 && image.type == "image/png", "\(image.status) \(image.type)")
        let picture = try DecodedPicture(png: [UInt8](image.body))
        #expect(picture.width == width && picture.height == height, "\(picture.width)x\(picture.height), listed \(width)x\(height)")
        let tree = WidgetTree(root: try #require(try collector.json("GET", "/api/snapshots/\(id)")["tree"] as? [String: Any]))

        // No definitions yet: whatever counts them later counts clicks made before they existed.
        #expect((try collector.json("GET", "/api/rules?app=\(Self.app)")["rules"] as? [Any])?.isEmpty == true)

        // Clicks at the centres of widgets' frames in the picture, each once stored before the next.
        func shown(_ node: [String: Any]) -> Bool {
            guard let c = try? WidgetTree.center(node) else { return false }
            return c.x > 0 && c.y > 0 && c.x < width && c.y < height
        }
        let check = try tree.node("id", "checkbutton1")
        #expect(shown(check), "checkbutton1 at \(check["frame"] ?? "?") in \(width)x\(height)")
        let button = try #require(
            tree.nodes.first {
                $0["type"] as? String == "GtkButton" && shown($0) && !(($0["path"] as? String ?? "").contains("SpinButton"))
            }, "a plain button on page 1")
        let otherCheck = try #require(
            tree.nodes.first { $0["type"] as? String == "GtkCheckButton" && shown($0) && $0["id"] as? String != "checkbutton1" },
            "a second check button on page 1")
        let window = try display.window(titled: "Widget Factory")
        var clicks: [String: Int] = [:]
        for node in [check, button, otherCheck, check, button] {
            let path = try #require(node["path"] as? String)
            let c = try WidgetTree.center(node)
            try display.click(window: window, x: c.x, y: c.y)
            clicks[path, default: 0] += 1
            let wanted = clicks[path]!
            _ = try Self.wait("click \(wanted) on \(path) stored") {
                try storedEvents(db: collector.db).count(where: { $0.string("path") == path }) >= wanted ? true : nil
            }
        }
        // Quitting sends what the agent still holds; the store is final after that.
        try display.xdotool(["key", "ctrl+q"])
        #expect(try factory.waitForExit(within: 30) == 0, "stderr: \(factory.standardError.suffix(2000))")
        let stored = try storedEvents(db: collector.db).filter { $0.string("appKey") == Self.app }

        // Definitions made now, on the clicked widgets' exact paths, count the stored clicks.
        for (n, node) in [check, button].enumerated() {
            let path = try #require(node["path"] as? String)
            let onPath = stored.filter { $0.string("path") == path }
            let types = Set(onPath.compactMap { $0.string("type") })
            let type = try #require(types.first, "no stored event on \(path)")
            #expect(types.count == 1, "\(path): \(types)")
            #expect(onPath.count >= clicks[path]!, "\(path): \(onPath.count) stored for \(clicks[path]!) clicks")
            let viewEvent = try #require(Self.viewEvents[type], "\(path)'s clicks are stored as \(type)")
            let rule = try JSONSerialization.data(withJSONObject: [
                "id": "factory-\(n)", "name": "Widget \(n)", "appKey": Self.app, "appVersion": "*", "viewEvent": viewEvent,
                "viewPath": path,
            ])
            let created = try collector.request("POST", "/api/rules", json: String(decoding: rule, as: UTF8.self))
            #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let counts = try collector.json("GET", "/api/rules/factory-\(n)/counts")
            #expect((counts["total"] as? NSNumber)?.intValue == onPath.count, "\(path): \(counts)")
        }

        // The heatmap: per path of the picture, every stored interaction on it (clicks, taps, value
        // changes; not page enters or leaves, nor kvc_errors), nothing else.
        let paths = Set(tree.nodes.compactMap { $0["path"] as? String })
        let interactions: Set<String> = ["click", "list_item_click", "value_changed"]
        var expected: [String: Int] = [:]
        for e in stored {
            if let p = e.string("path"), paths.contains(p), interactions.contains(e.string("type") ?? "") { expected[p, default: 0] += 1 }
        }
        let elements = try #require(try collector.json("GET", "/api/snapshots/\(id)/heatmap")["elements"] as? [[String: Any]])
        var heatmap: [String: Int] = [:]
        for e in elements {
            let p = try #require(e["path"] as? String)
            #expect(heatmap[p] == nil, "\(p) twice in the heatmap")
            heatmap[p] = (e["count"] as? NSNumber)?.intValue
        }
        #expect(heatmap == expected)
        for (path, n) in clicks { #expect((heatmap[path] ?? 0) >= n, "\(path): \(heatmap[path] ?? 0) for \(n) clicks") }
        #expect(try collector.stop() == 0, "stderr: \(collector.process.standardError.suffix(2000))")
    }
}
