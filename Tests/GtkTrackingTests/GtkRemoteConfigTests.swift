import Collector
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Remote configuration of an unmodified GTK app: the shop runs through `autotrack-agent run
/// --config-refresh 1` under a virtual display, and a rule published to the collector while it
/// runs changes what its next click reports, with no restart (docs/config.md, docs/agent.md).
@Suite(.serialized)
struct GtkRemoteConfigTests {
    static let favPath =
        "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:0-0-0-0"
    /// A KVC rule for the first row's favourite button: the product's name, from the row's frame.
    static let publishedRules = """
        {"rules": [
          {"id": "remote-fav-product", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "GtkBox(home)-GtkScrolledWindow-GtkViewport-GtkListBox-GtkListBoxRow-GtkFrame-GtkBox-GtkButton&0-0-0-0-0:*-0-0-0",
           "keyPath": "parent.parent.label", "keyName": "remoteProduct"}
        ]}
        """

    @Test func aRulePublishedWhileTheShopRunsReachesItsNextClick() throws {
        let dir = Fixtures.temporaryDirectory("gtk-remote-config")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir, access: CollectorAccess(adminToken: "admin"))
        let display = try VirtualDisplay()
        defer { display.stop() }
        let trees = dir.appendingPathComponent("trees")
        // The agent's data directory (device id, last good rules) is the test's own.
        let data = dir.appendingPathComponent("agent")
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--to", collector.address.description, "--app-key", "shop", "--app-version", "1.2.0",
                "--config-refresh", "1", "--tree-dir", trees.path, "--spool", dir.appendingPathComponent("spool").path,
                "--", Built.shop,
            ], environment: display.environment(["AUTOTRACK_DATA_DIR": data.path]))
        defer { shop.kill() }

        let home = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        let fav = try WidgetTree.center(home.node("path", Self.favPath))
        _ = try collector.events(atLeast: 2)  // app_start, page_enter

        // Before the rule: the click carries no value of it.
        try display.click(window: window, x: fav.x, y: fav.y)
        _ = try collector.events(atLeast: 3)

        let rules = dir.appendingPathComponent("rules.json")
        try Self.publishedRules.write(to: rules, atomically: true, encoding: .utf8)
        let publish = try GUIProcess(
            Built.collector, ["rules", "publish", rules.path, "--to", collector.address.description, "--token", "admin"],
            environment: ProcessInfo.processInfo.environment)
        #expect(try publish.waitForExit(within: 30) == 0, "stderr: \(publish.standardError)")

        // The agent keeps a rule set on disk once it swapped it in: wait for the published one
        // (a refresh every second; 20 s at most).
        let kept = data.appendingPathComponent("rules.json")
        var swapped = false
        for _ in 0..<400 {
            if let text = try? String(contentsOf: kept, encoding: .utf8), text.contains("remote-fav-product") {
                swapped = true
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(swapped, "the running shop did not take the published rules; stderr: \(shop.standardError)")

        try display.click(window: window, x: fav.x, y: fav.y)
        let events = try collector.events(atLeast: 4)
        #expect(shop.isRunning, "the same run of the shop, no restart")
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        let clicks = events.filter { $0.string("type") == "click" }
        try #require(clicks.count == 2, "\(events.map { $0.string("name") ?? "?" })")
        #expect(clicks.map { $0.string("path") } == [Self.favPath, Self.favPath])
        #expect(clicks[0].props["remoteProduct"] == nil && clicks[0].props["rules"] == nil)
        #expect(clicks[1].props["remoteProduct"] as? String == "Teapot")
        #expect(clicks[1].props["rules"] as? String == "remote-fav-product")
        #expect(clicks[0].string("session") == clicks[1].string("session"), "one session: the app was not restarted")
    }
}
