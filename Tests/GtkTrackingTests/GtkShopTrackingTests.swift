import Foundation
import SystemCalls
import Testing
import TestSupport
import ViewIdentity

/// The GTK shop, unmodified, tracked through `autotrack-agent run` under a virtual display, driven
/// by real synthesized input, into a real collector.
@Suite(.serialized)
struct GtkShopTrackingTests {
    static let rowPath = "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0:1"
    static let detail = "GtkBox(detail)-GtkFrame-GtkBox-GtkBox"

    @Test func realInputIntoTheShopArrivesWithExactPathsCodesAndValues() throws {
        let dir = Fixtures.temporaryDirectory("gtk-shop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let trees = dir.appendingPathComponent("trees")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--to", collector.address.description, "--app-key", "shop", "--app-version", "1.2.0",
                "--config", Built.example("gtk-shop-events.json"), "--config", Built.example("gtk-shop-rules.json"),
                "--tree-dir", trees.path, "--spool", dir.appendingPathComponent("spool").path, "--", Built.shop,
            ], environment: display.environment())
        defer { shop.kill() }

        let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        // Launch built and filled the window by code: only the lifecycle is reported.
        let launch = try collector.events(atLeast: 2)
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try collector.events().map { $0.string("type") ?? "" } == ["app_start", "page_enter"])
        #expect(launch.last?.string("path") == "GtkBox(home)&0")

        // Each click, then the events it makes (a switch slides before it sets its state).
        func click(_ tree: WidgetTree, _ key: String, _ value: String, thenEvents count: Int) throws {
            let c = try WidgetTree.center(tree.node(key, value))
            try display.click(window: window, x: c.x, y: c.y)
            _ = try collector.events(atLeast: count)
        }
        // Open the Mug (row 1); the app then resets quantity and gift by code (not reported).
        try click(home, "title", "Mug", thenEvents: 5)
        let page = try WidgetTree.wait(directory: trees, page: "GtkBox(detail)")
        try click(page, "path", Self.detail + "-GtkSpinButton-GtkButton&0-0-0-0-0-1", thenEvents: 6)  // "+": quantity 2
        try click(page, "id", "gift", thenEvents: 7)
        try click(page, "id", "picture", thenEvents: 8)
        try click(page, "id", "addToCart", thenEvents: 9)
        let leftDetail = Date()
        try click(page, "id", "back", thenEvents: 12)
        let homeAgain = try WidgetTree.wait(directory: trees, page: "GtkBox(home)", newerThan: leftDetail)
        try click(homeAgain, "id", "fav", thenEvents: 13)  // the first row's: the Teapot
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        let events = try collector.events()
        let summary = events.map { "\($0.string("type") ?? "")|\($0.string("name") ?? "")|\($0.string("path") ?? "")" }
        let expected = [
            "app_start|app_start|",
            "page_enter|GtkBox(home)|GtkBox(home)&0",
            "list_item_click|GtkBox#products#row-activated|\(Self.rowPath)",
            "page_leave|GtkBox(home)|GtkBox(home)&0",
            "page_enter|GtkBox(detail)|GtkBox(detail)&0",
            "value_changed|GtkBox#quantity#value-changed|\(Self.detail)-GtkSpinButton&0-0-0-0-0",
            "value_changed|GtkBox#gift#state-set|\(Self.detail)-GtkSwitch&0-0-0-1-0",
            "gesture|GtkBox#picture#released|GtkBox(detail)-GtkFrame-GtkBox-GtkLabel&0-0-0-1",
            "click|CTRL_EVENT_DETAIL_ADD_TO_CART|\(Self.detail)-GtkButton&0-0-0-2-2",
            "click|GtkBox#back#clicked|GtkBox(detail)-GtkButton&0-0",
            "page_leave|GtkBox(detail)|GtkBox(detail)&0",
            "page_enter|GtkBox(home)|GtkBox(home)&0",
            "click|CTRL_EVENT_FAV|GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:0-0-0-0",
            "page_leave|GtkBox(home)|GtkBox(home)&0",
            "app_end|app_end|",
        ]
        #expect(summary == expected)
        for e in events {
            if let path = e.string("path") { #expect(e.string("viewId") == ViewID(canonical: path).hex) }
        }
        guard events.count == expected.count else { return }
        // KVC values read from the live widgets, and the interactions' own facts.
        let row = events[2].props
        #expect(row["productName"] as? String == "Mug")
        #expect(row["indexPath"] as? String == "0:1")
        #expect(row["rules"] as? String == "home-open-product")
        let quantity = events[5].props
        #expect((quantity["value"] as? NSNumber)?.doubleValue == 2)
        #expect((quantity["quantity"] as? NSNumber)?.doubleValue == 2)
        #expect(quantity["productName"] as? String == "Mug")
        #expect(events[6].props["isOn"] as? Bool == true)
        #expect(events[6].props["productName"] as? String == "Mug")
        #expect(events[7].props["gesture"] as? String == "GtkGestureClick")
        #expect(events[7].props["productName"] as? String == "Mug")
        let cart = events[8].props
        #expect(cart["code"] as? String == "GtkBox#addToCart#clicked")
        #expect(cart["title"] as? String == "Add to cart")
        #expect(cart["productName"] as? String == "Mug")
        #expect(cart["rules"] as? String == "detail-cart-product")
        #expect((events[10]["duration"] as? NSNumber).map { $0.intValue >= 0 } == true)
        #expect(events[11].props["count"] as? NSNumber == 2)
        let fav = events[12].props
        #expect(fav["code"] as? String == "GtkBox#fav#clicked")
        #expect(fav["productName"] as? String == "Teapot")
        #expect(fav["indexPath"] as? String == "0:0")
        #expect(Set(events.compactMap { $0.string("session") }).count == 1)
    }

    @Test func debugModePrintsTheMatchedRuleAndItsValueForARealClick() throws {
        let dir = Fixtures.temporaryDirectory("gtk-shop-debug")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let trees = dir.appendingPathComponent("trees")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--debug", "--app-key", "shop", "--app-version", "1.2.0",
                "--config", Built.example("gtk-shop-events.json"), "--config", Built.example("gtk-shop-rules.json"),
                "--tree-dir", trees.path, "--out", dir.appendingPathComponent("events.ndjson").path, "--", Built.shop,
            ], environment: display.environment())
        defer { shop.kill() }
        let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        let c = try WidgetTree.center(home.node("title", "Mug"))
        try display.click(window: window, x: c.x, y: c.y)
        _ = try WidgetTree.wait(directory: trees, page: "GtkBox(detail)")
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")
        let lines = shop.standardError.split(separator: "\n").filter { $0.hasPrefix("autotrack debug: ") }
        #expect(lines.first == "autotrack debug: appStart path=- code=app_start no view event: rules cannot name it")
        #expect(
            lines.contains(
                "autotrack debug: listItemClick path=\(Self.rowPath) code=GtkBox#products#row-activated matched: home-open-product=\"Mug\""),
            "stderr: \(shop.standardError)")
    }

    @Test func whatTheCollectorDidNotAcknowledgeIsSentByTheNextRunOverTLSAfterFailover() throws {
        let dir = Fixtures.temporaryDirectory("gtk-spool")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let spool = dir.appendingPathComponent("spool").path
        @discardableResult
        func runShop(to collectors: [String], trees: URL, _ drive: (WidgetTree, String) throws -> Void) throws -> String {
            let shop = try GUIProcess(
                Built.agent,
                ["run"] + collectors + ["--app-key", "shop", "--app-version", "1.2.0", "--tree-dir", trees.path, "--spool", spool,
                 "--", Built.shop], environment: display.environment())
            defer { shop.kill() }
            let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
            let window = try display.window(titled: "^Autotrack Shop$", of: shop)
            try drive(home, window)
            try display.xdotool(["key", "ctrl+q"])
            #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")
            return shop.standardError
        }
        // Port 1 on loopback refuses connections: nothing is acknowledged, all stays spooled.
        let said = try runShop(to: ["--to", "127.0.0.1:1"], trees: dir.appendingPathComponent("trees-1")) { home, window in
            let c = try WidgetTree.center(home.node("title", "Kettle"))
            try display.click(window: window, x: c.x, y: c.y)
            _ = try WidgetTree.wait(directory: dir.appendingPathComponent("trees-1"), page: "GtkBox(detail)")
        }
        // Said once (not per event nor per retry), and at exit how many events wait where.
        let unreachable = "autotrack: the collector at 127.0.0.1:1 cannot be reached ("
        #expect(said.components(separatedBy: unreachable).count == 2, "stderr: \(said)")
        #expect(said.contains("the program runs on, and its events are kept in the spool \(spool) and sent when a collector answers"))
        let waiting = try #require(said.firstMatch(of: /autotrack-agent run: (\d+) events wait in the spool (.+?), not acknowledged/))
        #expect(Int(waiting.1) ?? 0 >= 3, "app start, home and detail pages at least")
        #expect(waiting.2 == spool)
        // The next run ships over TLS, and fails over from a collector that does not answer to one that does.
        let certificate = try TestCertificate()
        let collector = try TestCollector(directory: dir, tls: certificate)
        try runShop(
            to: ["--to", "127.0.0.1:1", "--to", collector.address.description, "--tls-ca", certificate.certificate],
            trees: dir.appendingPathComponent("trees-2")) { _, _ in }
        let events = try collector.events(atLeast: 1)
        let rows = events.filter { $0.string("type") == "list_item_click" }
        #expect(rows.map { $0.string("path") } == ["GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow&0-0-0-0-0:2"])
        #expect(Set(events.compactMap { $0.string("session") }).count == 2, "both runs' sessions arrive")
        #expect(events.filter { $0.string("type") == "app_start" }.count == 2)
    }
}
