import Foundation
import SystemCalls
import Testing
import TestSupport

/// `app_end` with the foreground time, ignored views and typed text (docs/privacy.md) in real GTK
/// applications under `autotrack-agent run`, on a virtual display, driven by real input, into a
/// real collector: the shop, and `gtk4-widget-factory` as Debian ships it.
@Suite(
    .serialized, .timeLimit(.minutes(4)))
struct GtkPrivacyTrackingTests {
    static let row = "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow"
    static let spin = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkSpinButton&0-0-0-0-0"

    /// The last event is `app_end`, carrying in `duration` and `props.duration` the time since
    /// `app_start` (no window changed activity under Xvfb): at least until the last interaction.
    static func checkEnd(_ events: [[String: Any]]) throws {
        let start = try #require(events.first { $0.string("type") == "app_start" })
        let end = try #require(events.last)
        #expect(end.string("type") == "app_end" && end.string("name") == "app_end")
        let duration = try #require((end["duration"] as? NSNumber)?.int64Value, "app_end's duration")
        #expect((end.props["duration"] as? NSNumber)?.int64Value == duration)
        let startTs = try #require((start["ts"] as? NSNumber)?.int64Value)
        let endTs = try #require((end["ts"] as? NSNumber)?.int64Value)
        let lastInteraction = events.dropLast().compactMap { ($0["ts"] as? NSNumber)?.int64Value }.max() ?? startTs
        #expect(duration >= lastInteraction - startTs && duration <= endTs - startTs + 50, "\(duration) ms")
    }

    @Test func theShopEndsWithItsForegroundTimeAndIgnoredViewsAndTypedTextStayOut() throws {
        let dir = Fixtures.temporaryDirectory("gtk-privacy-shop")
        defer { try? FileManager.default.removeItem(at: dir) }
        // Row Share buttons ignored, and the spin button's text read by the readText rule only.
        let config = Built.example("gtk-shop-privacy.json")
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let trees = dir.appendingPathComponent("trees")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--to", collector.address.description, "--app-key", "shop", "--config", config, "--tree-dir", trees.path,
                "--spool", dir.appendingPathComponent("spool").path, "--", Built.shop,
            ], environment: display.environment())
        defer { shop.kill() }
        let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let windowTree = try WidgetTree.wait(directory: trees, page: "GtkWindow")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        _ = try collector.events(atLeast: 2)
        func click(_ node: [String: Any]) throws {
            let c = try WidgetTree.center(node)
            try display.click(window: window, x: c.x, y: c.y)
        }
        // Row 0's Share (the plan's ignore) and the cart label (styled autotrack-ignore, and tappable)
        // make nothing; the Favourite clicked after them does.
        try click(try home.node("path", "\(Self.row)-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:0-0-0-1"))
        try click(try windowTree.node("id", "cart"))
        try click(try home.node("path", "\(Self.row)-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:0-0-0-0"))
        _ = try collector.events(atLeast: 3)
        // The spin button's text is typed text: read by the rule that says readText only.
        try click(try home.node("title", "Mug"))
        let detail = try WidgetTree.wait(directory: trees, page: "GtkBox(detail)")
        try click(try detail.node("path", Self.spin.replacingOccurrences(of: "&0-0-0-0-0", with: "-GtkButton&0-0-0-0-0-1")))
        try click(try detail.node("id", "picture"))
        _ = try collector.events(atLeast: 9)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        let events = try collector.events()
        #expect(
            events.map { "\($0.string("type") ?? "") \($0.string("path") ?? $0.string("name") ?? "")" } == [
                "app_start app_start", "page_enter GtkBox(home)&0",
                "click \(Self.row)-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:0-0-0-0",
                "list_item_click \(Self.row)&0-0-0-0-0:1", "page_leave GtkBox(home)&0", "page_enter GtkBox(detail)&0",
                "value_changed \(Self.spin)", "kvc_error \(Self.spin)",
                "gesture GtkBox(detail)-GtkFrame-GtkBox-GtkLabel&0-0-0-1",
                "page_leave GtkBox(detail)&0", "app_end app_end",
            ])
        guard events.count == 11 else { return }
        #expect(events[6].props["typedRead"] as? String == "2")
        #expect(events[6].props["typed"] == nil && events[6].props["rules"] as? String == "quantity-text-read")
        #expect(events[7].string("name") == "quantity-text" && events[7].props["missingKey"] as? String == "text")
        try Self.checkEnd(events)
    }

    @Test func leavingTheForegroundAndComingBackTimeTheBackgroundAndTheEnd() throws {
        let dir = Fixtures.temporaryDirectory("gtk-foreground")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let trees = dir.appendingPathComponent("trees")
        let out = dir.appendingPathComponent("events.ndjson")
        let shop = try GUIProcess(
            Built.agent, ["run", "--out", out.path, "--app-key", "shop", "--tree-dir", trees.path, "--", Built.shop],
            environment: display.environment())
        defer { shop.kill() }
        _ = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        // No window manager: the input focus alone makes a window active. Focus on the root
        // window leaves the app without an active window (the background), then it comes back.
        try display.xdotool(["windowfocus", "--sync", window])
        Thread.sleep(forTimeInterval: 1)
        let root = try display.xdotool(["search", "--maxdepth", "0", ""]).split(separator: "\n").first.map(String.init) ?? ""
        try display.xdotool(["windowfocus", root])
        Thread.sleep(forTimeInterval: 1.5)
        try display.xdotool(["windowfocus", "--sync", window])
        Thread.sleep(forTimeInterval: 1)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        let app = try ndjsonEvents(out).filter { ($0.string("type") ?? "").hasPrefix("app_") }
        #expect(app.map { $0.string("type") ?? "" } == ["app_start", "app_background", "app_foreground", "app_end"])
        guard app.count == 4 else { return }
        func ms(_ e: [String: Any], _ key: String) -> Int64 { (e[key] as? NSNumber)?.int64Value ?? -1 }
        // Each duration is the foreground time it closes, on the monotonic clock (ts is wall time).
        for (closing, opening) in [(1, 0), (3, 2)] {
            let duration = ms(app[closing], "duration")
            #expect((app[closing].props["duration"] as? NSNumber)?.int64Value == duration)
            #expect(abs(duration - (ms(app[closing], "ts") - ms(app[opening], "ts"))) <= 100, "\(app[closing])")
        }
        #expect(ms(app[3], "duration") >= 900)
    }

    @Test func anUnmodifiedProgramsIgnoredPageIsSilentAndBlankedAndItsEndArrives() throws {
        let dir = Fixtures.temporaryDirectory("gtk-privacy-factory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = dir.appendingPathComponent("ignore.json")
        try #"{"ignore": ["GtkBox(page1)&0"]}"#.write(to: config, atomically: true, encoding: .utf8)
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        var command = [
            Built.agent, "run", "--to", collector.address.description, "--app-key", "widget-factory", "--snapshots",
            "--config", config.path, "--spool", dir.appendingPathComponent("spool").path, "--", "gtk4-widget-factory",
        ]
        if let bus = VirtualDisplay.executable("dbus-run-session") { command = [bus, "--"] + command }
        let app = try GUIProcess(command[0], Array(command.dropFirst()), environment: display.environment())
        defer { app.kill() }

        // The ignored page's snapshot: painted over whole, and no node with a title or props.
        let page1 = try collector.snapshot(page: "GtkBox(page1)")
        let picture = try SnapshotTrackingTests.checkPicture(page1)
        let tree = try page1.widgetTree
        #expect(picture.colours(in: try tree.root.frame) == [SnapshotTrackingTests.blank])
        #expect(tree.nodes.allSatisfy { $0["props"] == nil && $0["title"] == nil })
        let window = try display.window(titled: "Widget Factory", of: app)
        let windowTree = try collector.snapshot(page: "GtkApplicationWindow").widgetTree
        let switchers = windowTree.nodes.filter {
            $0["type"] as? String == "GtkToggleButton" && $0["frame"] != nil && ($0["path"] as? String ?? "").contains("GtkStackSwitcher")
        }
        #expect(switchers.count >= 2)
        guard switchers.count >= 2 else { return }
        // A click on the page's check button toggles it and reports nothing; page 2 through the
        // header bar's switcher (outside the page) is reported, leaving page 1 is not.
        try SnapshotTrackingTests.click(try tree.node("id", "checkbutton1"), in: window, on: display)
        try SnapshotTrackingTests.click(switchers[1], in: window, on: display)
        _ = try collector.event { $0.string("type") == "page_enter" && $0.string("path") == "GtkOverlay(page2)&0" }
        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.waitForExit(within: 30) == 0, "stderr: \(app.standardError.suffix(2000))")

        let events = try collector.events()
        #expect(!events.contains { ($0.string("path") ?? "").hasPrefix("GtkBox(page1)") }, "\(events)")
        #expect(events.contains { $0.string("type") == "value_changed" && $0.string("path") == switchers[1]["path"] as? String })
        #expect(events.contains { $0.string("type") == "page_leave" && $0.string("path") == "GtkOverlay(page2)&0" })
        try Self.checkEnd(events)
    }
}
