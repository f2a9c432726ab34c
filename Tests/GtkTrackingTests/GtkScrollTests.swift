import Foundation
import Testing
import TestSupport

/// Scrolls in unmodified GTK programs under Xvfb (docs/gtk.md "Scrolling"): one `scroll` event
/// when a scrolled window the user moved (wheel, scrollbar drag) comes to rest, with its offset,
/// direction and the depth seen in this page visit.
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct GtkScrollTests {
    static let factoryList = "GtkBox(page3)-GtkBox-GtkScrolledWindow&0-0-0"

    /// GTK's own setting, as a user sets it: scrollbars that are always shown (overlay scrollbars
    /// show only while the pointer moves over the content), so the test can drag them.
    static func classicScrollbars(in dir: URL) throws -> [String: String] {
        let config = dir.appendingPathComponent("config/gtk-4.0")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data("[Settings]\ngtk-overlay-scrolling=false\n".utf8).write(to: config.appendingPathComponent("settings.ini"))
        return ["XDG_CONFIG_HOME": dir.appendingPathComponent("config").path]
    }

    static func scrolls(_ events: [[String: Any]]) -> [[String: Any]] { events.filter { $0.string("type") == "scroll" } }

    /// The scroll events once there are `count`, checked to stay `count` a while after (one per rest).
    static func scrolls(in file: URL, count: Int) throws -> [[String: Any]] {
        _ = try GtkImpressionTests.events(in: file, within: 20) { scrolls($0).count >= count }
        Thread.sleep(forTimeInterval: 1)
        let all = scrolls(try ndjsonEvents(file))
        try #require(all.count == count, "\(all.map { $0.props })")
        return all
    }

    static func offset(_ e: [String: Any]) throws -> (x: Int, y: Int) {
        let text = try #require(e.props["offset"] as? String)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [Int], "offset \(text)")
        try #require(array.count == 2)
        return (array[0], array[1])
    }

    static func depth(_ e: [String: Any]) throws -> Double { try #require((e.props["depth"] as? NSNumber)?.doubleValue) }

    static func frame(_ node: [String: Any]) throws -> [Int] {
        try #require((node["frame"] as? [NSNumber])?.map(\.intValue), "\(node["path"] ?? "?") has no frame")
    }

    @Test func wheelAndScrollbarDragGiveOneEventAtRestWithOffsetDirectionAndDepthPerVisit() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory-scroll")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory(
            display: display, directory: dir, environment: try Self.classicScrollbars(in: dir))
        try app.showPage(3, on: display)
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkBox(page3)")
        // The list of 40 rows: its viewport, its content, its vertical scrollbar's slider.
        let viewport = try Self.frame(try page.node("path", "GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkViewport&0-0-0-0"))
        let content = try Self.frame(try page.node("path", "GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkViewport-GtkListBox&0-0-0-0-0"))
        try #require(content[3] > viewport[3] * 2)
        let slider = try #require(
            page.nodes.filter {
                ($0["path"] as? String ?? "").hasPrefix("GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkScrollbar-")
                    && $0["type"] as? String == "GtkGizmo" && $0["frame"] != nil
            }.min { (try? Self.frame($0)[3]) ?? .max < (try? Self.frame($1)[3]) ?? .max })
        let s = try WidgetTree.center(slider)
        /// The share of the content seen with the content at offset `y`.
        func share(_ y: Int) -> Double { min(1, Double(y + viewport[3]) / Double(content[3])) }

        // Entering the page scrolled nothing the user did.
        #expect(Self.scrolls(try ndjsonEvents(app.events)).isEmpty)

        // 1. The slider dragged down by 60 pixels: one event at rest.
        try display.xdotool([
            "mousemove", "--window", app.window, String(s.x), String(s.y), "sleep", "0.3", "mousedown", "1", "sleep", "0.2",
            "mousemove", "--window", app.window, String(s.x), String(s.y + 20), "sleep", "0.1",
            "mousemove", "--window", app.window, String(s.x), String(s.y + 40), "sleep", "0.1",
            "mousemove", "--window", app.window, String(s.x), String(s.y + 60), "sleep", "0.1", "mouseup", "1",
        ])
        let dragged = try Self.scrolls(in: app.events, count: 1)[0]
        #expect(dragged.string("path") == Self.factoryList)
        #expect(dragged.string("page") == "GtkBox(page3)")
        #expect(dragged.string("name") == "GtkBox#GtkScrolledWindow#value-changed")
        #expect(dragged.props["direction"] as? String == "down")
        let o1 = try Self.offset(dragged)
        #expect(o1.x == 0 && o1.y > 100, "a 60-pixel drag of a slider a fifth of its trough moves the content about 300 pixels: \(o1)")
        let d1 = try Self.depth(dragged)
        #expect(abs(d1 - share(o1.y)) < 0.02, "depth \(d1), offset \(o1.y), viewport \(viewport[3]), content \(content[3])")

        // 2. Two wheel steps up: the offset falls, the depth stays the largest seen.
        let list = try WidgetTree.center(try page.node("path", "GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkViewport&0-0-0-0"))
        try display.xdotool(["mousemove", "--window", app.window, String(list.x), String(list.y)])
        try display.xdotool(["click", "4", "sleep", "0.05", "click", "4"])
        let up = try Self.scrolls(in: app.events, count: 2)[1]
        #expect(up.props["direction"] as? String == "up")
        let o2 = try Self.offset(up)
        #expect(o2.y < o1.y)
        #expect(try Self.depth(up) == d1)

        // 3. Ten wheel steps down: further down, a greater depth.
        try display.xdotool(Array(repeating: ["click", "5", "sleep", "0.05"], count: 10).flatMap { $0 })
        let down = try Self.scrolls(in: app.events, count: 3)[2]
        #expect(down.props["direction"] as? String == "down")
        let o3 = try Self.offset(down)
        #expect(o3.y > o1.y)
        let d3 = try Self.depth(down)
        #expect(d3 > d1 && d3 <= 1)
        #expect(abs(d3 - share(o3.y)) < 0.02)

        // 4. Back to the top: the depth stays the largest seen in this visit.
        try display.xdotool(Array(repeating: ["click", "4", "sleep", "0.05"], count: 20).flatMap { $0 })
        let top = try Self.scrolls(in: app.events, count: 4)[3]
        #expect(top.props["direction"] as? String == "up")
        #expect(try Self.offset(top).y == 0)
        #expect(try Self.depth(top) == d3)

        // 5. Page 1 and back: a new visit, whose depth starts again from what it shows.
        try app.showPage(1, on: display)
        Thread.sleep(forTimeInterval: 0.5)
        try app.showPage(3, on: display)
        Thread.sleep(forTimeInterval: 0.5)
        try display.xdotool(["mousemove", "--window", app.window, String(list.x), String(list.y), "click", "5"])
        let again = try Self.scrolls(in: app.events, count: 5)[4]
        let o5 = try Self.offset(again)
        #expect(again.props["direction"] as? String == "down")
        #expect(o5.y > 0 && o5.y < o3.y)
        let d5 = try Self.depth(again)
        #expect(d5 < d3, "a new visit forgets the depth of the last")
        #expect(abs(d5 - share(o5.y)) < 0.02)

        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        #expect(Self.scrolls(try ndjsonEvents(app.events)).count == 5)
    }

    @Test func aListViewScrolledSidewaysIsAScrollToTheRightWithAllItsHeightSeen() throws {
        // gtk4-demo's weather demo: a horizontal GtkListView in a scrolled window.
        let dir = Fixtures.temporaryDirectory("gtk-listview-scroll")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory.demo("listview_weather", title: "Weather", display: display, directory: dir)
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkWindow")
        let list = try WidgetTree.center(try page.node("path", "GtkWindow-GtkScrolledWindow-GtkListView&0-0-0"))
        try display.xdotool(["mousemove", "--window", app.window, String(list.x), String(list.y)])
        try display.xdotool(Array(repeating: ["click", "7", "sleep", "0.05"], count: 5).flatMap { $0 })
        let right = try Self.scrolls(in: app.events, count: 1)[0]
        #expect(right.string("path") == "GtkWindow-GtkScrolledWindow&0-0")
        #expect(right.string("name") == "GtkWindow#GtkScrolledWindow#value-changed")
        #expect(right.props["direction"] as? String == "right")
        let o = try Self.offset(right)
        #expect(o.x > 0 && o.y == 0, "\(o)")
        #expect(try Self.depth(right) == 1, "nothing to scroll down to: all of its height is seen")
        try display.xdotool(Array(repeating: ["click", "6", "sleep", "0.05"], count: 2).flatMap { $0 })
        let left = try Self.scrolls(in: app.events, count: 2)[1]
        #expect(left.props["direction"] as? String == "left")
        #expect(try Self.offset(left).x < o.x)
        _ = try? app.terminate()
    }
}
