import Collector
import Foundation
import SystemCalls
import Testing
import TestSupport
import ViewIdentity

/// Impressions in real GTK programs under Xvfb (docs/gtk.md "Impressions"): list rows at least half
/// visible for 500 ms, once per page visit, as they scroll in.
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct GtkImpressionTests {
    static let shopRows = "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0:"
    static let factoryRows = "GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0-0:"

    /// The events in `file` once `done` holds for them (polled), or a failure after `seconds`.
    static func events(
        in file: URL, within seconds: Double = 30, until done: ([[String: Any]]) -> Bool
    ) throws -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let events = try? ndjsonEvents(file), done(events) { return events }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw HarnessFailure("\(file.path): the events expected did not arrive within \(seconds) s")
    }

    static func impressions(_ events: [[String: Any]]) -> [[String: Any]] {
        events.filter { $0.string("type") == "impression" }
    }

    /// The row numbers of impressions' paths under `prefix`, in order.
    static func rows(_ events: [[String: Any]], _ prefix: String) -> [Int] {
        impressions(events).compactMap { e in
            guard let p = e.string("path"), p.hasPrefix(prefix) else { return nil }
            return Int(p.dropFirst(prefix.count))
        }
    }

    @Test func theShopsRowsAreSeenOncePerVisitOfTheHomePageWithTheRulesValues() throws {
        let dir = Fixtures.temporaryDirectory("gtk-impressions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let out = dir.appendingPathComponent("events.ndjson")
        let trees = dir.appendingPathComponent("trees")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--out", out.path, "--app-key", "shop", "--app-version", "1.2.0", "--config",
                Built.example("gtk-shop-rules.json"), "--config", Built.example("gtk-shop-impressions.json"), "--tree-dir",
                trees.path, "--", Built.shop,
            ], environment: display.environment())
        defer { shop.kill() }
        let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        // The four rows fit in the window: one impression each.
        _ = try Self.events(in: out) { Self.impressions($0).count >= 4 }
        let mug = try WidgetTree.center(home.node("title", "Mug"))
        try display.click(window: window, x: mug.x, y: mug.y)
        let detail = try WidgetTree.wait(directory: trees, page: "GtkBox(detail)")
        // A second on the product page: its widgets are no rule's.
        Thread.sleep(forTimeInterval: 1)
        let back = try WidgetTree.center(detail.node("id", "back"))
        try display.click(window: window, x: back.x, y: back.y)
        // The home page entered again: a new visit, whose rows are seen again.
        _ = try Self.events(in: out) { Self.impressions($0).count >= 8 }
        Thread.sleep(forTimeInterval: 1)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        let events = try ndjsonEvents(out)
        #expect(Self.rows(events, Self.shopRows) == [0, 1, 2, 3, 0, 1, 2, 3])
        let seen = Self.impressions(events)
        #expect(seen.map { ($0["props"] as? [String: Any])?["productName"] as? String ?? "-" } == [
            "Teapot", "Mug", "Kettle", "Tea tin", "Teapot", "Mug", "Kettle", "Tea tin",
        ])
        for e in seen {
            #expect(e.string("name") == "GtkBox#GtkListBoxRow#impression")
            #expect(e.string("page") == "GtkBox(home)")
            #expect(e.string("viewId") == ViewID(canonical: e.string("path") ?? "").hex)
            #expect((e["props"] as? [String: Any])?["rules"] as? String == "home-product-seen")
        }
        // Each visit's impressions come at least 500 ms after its page_enter, none while the home page is left.
        var entered: Int64?
        for e in events {
            let ts = (e["ts"] as? NSNumber)?.int64Value ?? 0
            switch (e.string("type"), e.string("page")) {
            case ("page_enter", "GtkBox(home)"): entered = ts
            case ("page_leave", "GtkBox(home)"): entered = nil
            case ("impression", _):
                let start = try #require(entered, "an impression outside a visit of the home page")
                #expect(ts - start >= 500)
            default: break
            }
        }
    }

    @Test func impressionRulesPublishedWhileTheShopRunsStartTheWatching() throws {
        let dir = Fixtures.temporaryDirectory("gtk-remote-impressions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir, access: CollectorAccess(adminToken: "admin"))
        let display = try VirtualDisplay()
        defer { display.stop() }
        let data = dir.appendingPathComponent("agent")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--to", collector.address.description, "--app-key", "shop", "--app-version", "1.2.0",
                "--config-refresh", "1", "--spool", dir.appendingPathComponent("spool").path, "--", Built.shop,
            ], environment: display.environment(["AUTOTRACK_DATA_DIR": data.path]))
        defer { shop.kill() }
        _ = try display.window(titled: "^Autotrack Shop$", of: shop)
        _ = try collector.events(atLeast: 2)  // app_start, page_enter
        // No impression rule: nothing is watched.
        Thread.sleep(forTimeInterval: 1.5)
        #expect(try collector.events().allSatisfy { $0.string("type") != "impression" })

        let publish = try GUIProcess(
            Built.collector,
            ["rules", "publish", Built.example("gtk-shop-impressions.json"), "--to", collector.address.description, "--token", "admin"],
            environment: ProcessInfo.processInfo.environment)
        #expect(try publish.waitForExit(within: 30) == 0, "stderr: \(publish.standardError)")
        // The rows shown all along are seen once the rules arrive (a refresh every second).
        let events = try collector.events(atLeast: 6, within: 30)
        #expect(shop.isRunning, "the same run of the shop, no restart")
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")
        #expect(Self.rows(try collector.events(), Self.shopRows) == [0, 1, 2, 3])
        #expect(events.filter { $0.string("type") == "impression" }.allSatisfy { $0.props["productName"] != nil })
    }

    @Test func anUnmodifiedProgramsListRowsAreSeenAsTheyScrollIn() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory-impressions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let rules = dir.appendingPathComponent("rules.json")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(
            #"{"rules":[{"id":"row-seen","appKey":"widget-factory","appVersion":"*","viewEvent":"Impression","name":"A row seen","viewPath":"\#(Self.factoryRows)*"}]}"#
                .utf8
        ).write(to: rules)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory(display: display, directory: dir, configs: [rules.path])
        // Page 3 through the stack switcher: its list of 40 rows shows the first few.
        let windowTree = try WidgetTree.wait(directory: app.trees, page: "GtkApplicationWindow")
        let switcher = windowTree.nodes.filter {
            $0["type"] as? String == "GtkToggleButton" && $0["frame"] != nil && ($0["path"] as? String ?? "").contains("GtkStackSwitcher")
        }
        try #require(switcher.count == 3)
        let third = try WidgetTree.center(switcher[2])
        try display.click(window: app.window, x: third.x, y: third.y)
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkBox(page3)")
        // The rows at least half inside the list's viewport, by the tree's frames.
        let viewport = try #require(
            page.nodes.first { ($0["path"] as? String ?? "").hasPrefix("GtkBox(page3)-GtkBox-GtkScrolledWindow-GtkViewport&") })
        let clip = try #require(viewport["frame"] as? [NSNumber]).map(\.doubleValue)
        let halfShown = page.nodes.compactMap { n -> Int? in
            guard let p = n["path"] as? String, p.hasPrefix(Self.factoryRows), let f = (n["frame"] as? [NSNumber])?.map(\.doubleValue)
            else { return nil }
            let top = max(f[1], clip[1])
            let bottom = min(f[1] + f[3], clip[1] + clip[3])
            return max(0, bottom - top) * 2 >= f[3] ? Int(p.dropFirst(Self.factoryRows.count)) : nil
        }.sorted()
        try #require(halfShown.count >= 2 && halfShown.count < 40)
        let first = try Self.events(in: app.events) { Self.rows($0, Self.factoryRows).count >= halfShown.count }
        #expect(Self.rows(first, Self.factoryRows) == halfShown)

        // The wheel scrolls rows in: each is seen once, in order, none twice.
        let list = try WidgetTree.center(viewport)
        try display.xdotool(["mousemove", "--window", app.window, String(list.x), String(list.y)])
        for _ in 0..<5 { try display.xdotool(["click", "5"]) }
        let scrolled = try Self.events(in: app.events) { Self.rows($0, Self.factoryRows).count > halfShown.count }
        Thread.sleep(forTimeInterval: 1.5)
        let down = Self.rows(try ndjsonEvents(app.events), Self.factoryRows)
        #expect(down == Array(0..<down.count), "\(down)")
        #expect(Self.rows(scrolled, Self.factoryRows).count > halfShown.count)
        // Back up: rows seen in this visit are not seen again.
        for _ in 0..<10 { try display.xdotool(["click", "4"]) }
        Thread.sleep(forTimeInterval: 1.5)
        #expect(Self.rows(try ndjsonEvents(app.events), Self.factoryRows) == down)

        // Page 1 and back to page 3: a new visit, the top rows again.
        let firstPage = try WidgetTree.center(switcher[0])
        try display.click(window: app.window, x: firstPage.x, y: firstPage.y)
        Thread.sleep(forTimeInterval: 1)
        try display.click(window: app.window, x: third.x, y: third.y)
        let again = try Self.events(in: app.events) { Self.rows($0, Self.factoryRows).count >= down.count + halfShown.count }
        #expect(Self.rows(again, Self.factoryRows) == down + halfShown)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        for e in Self.impressions(try ndjsonEvents(app.events)) {
            #expect(e.string("name") == "GtkBox#GtkListBoxRow#impression")
            #expect((e["props"] as? [String: Any])?["rules"] as? String == "row-seen")
        }
    }

    /// The frame of a tree node, `[x, y, width, height]`.
    static func frame(_ node: [String: Any]) -> [Double]? { (node["frame"] as? [NSNumber])?.map(\.doubleValue) }

    @Test func aListViewsRecycledRowsAreSeenByTheirItemPosition() throws {
        // gtk4-demo's weather demo: a horizontal GtkListView of hours whose few row widgets are
        // reused as it scrolls; a row is known by the position of the item it shows.
        guard VirtualDisplay.executable("gtk4-demo") != nil else { throw HarnessFailure("gtk4-demo is not installed (Tools/setup.sh)") }
        let dir = Fixtures.temporaryDirectory("gtk-listview-impressions")
        defer { try? FileManager.default.removeItem(at: dir) }
        let hours = "GtkWindow-GtkScrolledWindow-GtkListView-GtkListItemWidget&0-0-0-0:"
        let rules = dir.appendingPathComponent("rules.json")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(
            #"{"rules":[{"id":"hour-seen","appKey":"demo","appVersion":"*","viewEvent":"Impression","name":"An hour seen","viewPath":"\#(hours)*"}]}"#
                .utf8
        ).write(to: rules)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory(
            display: display, directory: dir, configs: [rules.path], program: ["gtk4-demo", "--run=listview_weather"],
            appKey: "demo", firstPage: "GtkWindow", title: "Weather")
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkWindow")
        // What the window, the scrolled window and the list view all show.
        var clip = try #require(Self.frame(page.root))
        for prefix in ["GtkWindow-GtkScrolledWindow&", "GtkWindow-GtkScrolledWindow-GtkListView&"] {
            let f = try #require(page.nodes.first { ($0["path"] as? String ?? "").hasPrefix(prefix) }.flatMap(Self.frame))
            let left = max(clip[0], f[0])
            let right = min(clip[0] + clip[2], f[0] + f[2])
            clip = [left, clip[1], max(0, right - left), clip[3]]
        }
        let halfShown = page.nodes.compactMap { n -> Int? in
            guard let p = n["path"] as? String, p.hasPrefix(hours), let f = Self.frame(n) else { return nil }
            let shown = max(0, min(f[0] + f[2], clip[0] + clip[2]) - max(f[0], clip[0]))
            return shown * 2 >= f[2] ? Int(p.dropFirst(hours.count)) : nil
        }.sorted()
        try #require(halfShown.count >= 2)
        let first = try Self.events(in: app.events) { Self.rows($0, hours).count >= halfShown.count }
        #expect(Self.rows(first, hours) == halfShown)

        // Scrolling right brings later hours in, shown by the same few row widgets.
        try display.xdotool(["mousemove", "--window", app.window, String(Int(clip[0] + clip[2] / 2)), "200"])
        for _ in 0..<5 { try display.xdotool(["click", "7"]) }
        _ = try Self.events(in: app.events) { Self.rows($0, hours).count > halfShown.count }
        Thread.sleep(forTimeInterval: 1.5)
        let right = Self.rows(try ndjsonEvents(app.events), hours)
        #expect(right == Array(0..<right.count), "\(right)")
        #expect(right.count > halfShown.count)
        // Back to the start: every hour shown again was seen in this visit already.
        for _ in 0..<10 { try display.xdotool(["click", "6"]) }
        Thread.sleep(forTimeInterval: 1.5)
        #expect(Self.rows(try ndjsonEvents(app.events), hours) == right)
        _ = try? app.terminate()
        for e in Self.impressions(try ndjsonEvents(app.events)) {
            #expect(e.string("name") == "GtkWindow#GtkListItemWidget#impression")
            #expect(e.string("page") == "GtkWindow")
        }
    }
}
