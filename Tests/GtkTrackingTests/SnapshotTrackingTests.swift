import EventStore
import Foundation
import SystemCalls
import Testing
import TestSupport

/// Snapshots of real GTK applications (docs/gtk.md "Snapshots"): `autotrack-agent run --snapshots`
/// into a real collector, under a virtual display, driven by real input. The picture decodes at the
/// size the snapshot says, a click inside a widget's snapshot frame is an event naming that widget,
/// and text typed into an entry is neither in the picture nor in the tree.
@Suite(
    .serialized, .timeLimit(.minutes(4)))
struct SnapshotTrackingTests {
    /// What a blanked frame is painted with (GtkSnapshots' grey), as GDK's B, G, R, A bytes.
    static let blank: [UInt8] = [158, 158, 158, 255]

    /// The picture decodes with the snapshot's size, and the page's frame lies inside it (what is
    /// inside may be scrolled partly out of it).
    static func checkPicture(_ s: Snapshot) throws -> DecodedPicture {
        let picture = try DecodedPicture(png: s.png)
        #expect(picture.width == s.width && picture.height == s.height, "\(s.page): \(picture.width)x\(picture.height)")
        #expect(s.width >= 200 && s.height >= 200, "\(s.page): \(s.width)x\(s.height)")
        let f = try s.widgetTree.root.frame
        #expect(f[0] >= 0 && f[1] >= 0 && f[0] + f[2] <= s.width + 1 && f[1] + f[3] <= s.height + 1, "\(s.page): \(f)")
        return picture
    }

    /// Clicks 3 pixels inside the top left corner of `node`'s snapshot frame.
    static func click(_ node: [String: Any], in window: String, on display: VirtualDisplay) throws {
        let f = try node.frame
        try display.click(window: window, x: f[0] + 3, y: f[1] + 3)
    }

    /// The typed-text widget inside `entry` is painted over, and `secret` is in no node.
    static func checkBlanked(entry: [String: Any], secret: String, in s: Snapshot, picture: DecodedPicture) throws {
        let children = entry["children"] as? [[String: Any]] ?? []
        let text = try #require(children.first { $0["type"] as? String == "GtkText" }, "the entry's GtkText")
        #expect(picture.colours(in: try text.frame) == [blank], "the text of \(entry["path"] ?? "?") is painted over")
        #expect(picture.colours(in: try entry.frame, inset: 0).count > 1, "the entry's own frame stays visible")
        #expect(!s.tree.contains(secret), "typed text in the tree of \(s.page)")
        #expect((text["props"] as? [String: Any])?["text"] == nil && (entry["props"] as? [String: Any])?["text"] == nil)
    }

    @Test func theShopsPagesArrivePaintedFramedAndWithoutTypedText() throws {
        let dir = Fixtures.temporaryDirectory("gtk-snap-shop")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let shop = try GUIProcess(
            Built.agent,
            [
                "run", "--to", collector.address.description, "--app-key", "shop", "--app-version", "1.2.0", "--snapshots",
                "--spool", dir.appendingPathComponent("spool").path, "--", Built.shop,
            ], environment: display.environment())
        defer { shop.kill() }

        let home = try collector.snapshot(page: "GtkBox(home)")
        #expect(home.appKey == "shop" && home.appVersion == "1.2.0")
        _ = try Self.checkPicture(home)
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        // The cart label is styled autotrack-ignore: painted over, with no title and no props.
        let windowSnapshot = try collector.snapshot(page: "GtkWindow")
        let cart = try windowSnapshot.widgetTree.node("id", "cart")
        #expect(try Self.checkPicture(windowSnapshot).colours(in: try cart.frame) == [Self.blank])
        #expect(cart["title"] == nil && cart["props"] == nil)
        #expect(!windowSnapshot.tree.contains("Cart: empty"))
        let homeTree = try home.widgetTree
        let mug = try homeTree.node("title", "Mug")
        #expect((mug["props"] as? [String: Any])?["label"] as? String == "Mug", "props hold the readable properties")
        try Self.click(mug, in: window, on: display)
        let detail = try collector.snapshot(page: "GtkBox(detail)")
        _ = try Self.checkPicture(detail)
        let detailTree = try detail.widgetTree

        // A click inside the button's snapshot frame is that button's event.
        let addToCart = try detailTree.node("title", "Add to cart")
        try Self.click(addToCart, in: window, on: display)
        let clicked = try collector.event { $0.string("type") == "click" }
        #expect(clicked.string("path") == addToCart["path"] as? String)
        // The pictures name the device the events come from.
        let devices = try sqlite(collector.db, "SELECT DISTINCT device_id FROM events")
        #expect(home.device != nil && devices == [home.device], "\(home.device ?? "none"), \(devices)")

        // Typed text: into the gift note, then the page again (a new snapshot with the note filled).
        let note = try detailTree.node("id", "giftNote")
        let secret = "SECRETNOTE"
        try Self.click(note, in: window, on: display)
        try display.xdotool(["type", "--delay", "20", secret])
        let typed = Int64(Date().timeIntervalSince1970 * 1000)
        try Self.click(try detailTree.node("id", "back"), in: window, on: display)
        let homeAgain = try collector.snapshot(page: "GtkBox(home)", after: typed)
        try Self.click(try homeAgain.widgetTree.node("title", "Mug"), in: window, on: display)
        let filled = try collector.snapshot(page: "GtkBox(detail)", after: typed)
        let picture = try Self.checkPicture(filled)
        let filledNote = try filled.widgetTree.node("id", "giftNote")
        try Self.checkBlanked(entry: filledNote, secret: secret, in: filled, picture: picture)
        // What is not typed text stays readable.
        #expect((filledNote["props"] as? [String: Any])?["placeholder-text"] as? String == "Gift note")

        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")
    }

    @Test func circleModeOnTheCollectorBringsThePageShownAndOffStopsThem() throws {
        let dir = Fixtures.temporaryDirectory("gtk-snap-circle")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try collector.snapshotStore.setCircleMode(appKey: "shop", until: now + 600_000)
        let display = try VirtualDisplay()
        defer { display.stop() }
        // No --snapshots: the collector's CONFIG answer turns circle mode on.
        let shop = try GUIProcess(
            Built.agent,
            ["run", "--to", collector.address.description, "--app-key", "shop", "--spool", dir.appendingPathComponent("spool").path,
             "--", Built.shop], environment: display.environment())
        defer { shop.kill() }
        let home = try collector.snapshot(page: "GtkBox(home)")
        let window = try display.window(titled: "^Autotrack Shop$", of: shop)
        // Off: within one 3-second poll (and the collector's one-second cache) the agent stops.
        try collector.snapshotStore.setCircleMode(appKey: "shop", until: nil)
        Thread.sleep(forTimeInterval: 5)
        try Self.click(try home.widgetTree.node("title", "Mug"), in: window, on: display)
        _ = try collector.event { $0.string("type") == "page_enter" && $0.string("path") == "GtkBox(detail)&0" }
        Thread.sleep(forTimeInterval: 2)
        #expect(try collector.snapshotStore.snapshots(appKey: "shop", appVersion: nil).allSatisfy { $0.page != "GtkBox(detail)" })
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")
    }

    @Test func theWidgetFactorysPagesArrivePaintedFramedAndWithoutTypedText() throws {
        let dir = Fixtures.temporaryDirectory("gtk-snap-factory")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try TestCollector(directory: dir)
        let display = try VirtualDisplay()
        defer { display.stop() }
        var command = [
            Built.agent, "run", "--to", collector.address.description, "--app-key", "widget-factory", "--snapshots",
            "--spool", dir.appendingPathComponent("spool").path, "--", "gtk4-widget-factory",
        ]
        if let bus = VirtualDisplay.executable("dbus-run-session") { command = [bus, "--"] + command }
        let app = try GUIProcess(command[0], Array(command.dropFirst()), environment: display.environment())
        defer { app.kill() }

        let page1 = try collector.snapshot(page: "GtkBox(page1)")
        _ = try Self.checkPicture(page1)
        let window = try display.window(titled: "Widget Factory", of: app)
        let tree = try page1.widgetTree
        let check = try tree.node("id", "checkbutton1")
        try Self.click(check, in: window, on: display)
        let toggled = try collector.event { $0.string("path") == check["path"] as? String }
        #expect(toggled.string("type") == "value_changed", "a click inside checkbutton1's frame toggles it")

        // Typed text into the page's first entry; then page 2 and back for a new snapshot of page 1.
        let entry = try #require(
            tree.nodes.first { $0["type"] as? String == "GtkEntry" && $0["frame"] != nil }, "an entry on page 1")
        let secret = "SECRETFACTORY"
        let f = try entry.frame
        try display.click(window: window, x: f[0] + f[2] / 2, y: f[1] + f[3] / 2)
        try display.xdotool(["type", "--delay", "20", secret])
        let typed = Int64(Date().timeIntervalSince1970 * 1000)
        let windowTree = try collector.snapshot(page: "GtkApplicationWindow").widgetTree
        let switchers = windowTree.nodes.filter {
            $0["type"] as? String == "GtkToggleButton" && $0["frame"] != nil && ($0["path"] as? String ?? "").contains("GtkStackSwitcher")
        }
        #expect(switchers.count >= 2)
        guard switchers.count >= 2 else { return }
        try Self.click(switchers[1], in: window, on: display)
        _ = try collector.snapshot(page: "GtkOverlay(page2)", after: typed)
        try Self.click(switchers[0], in: window, on: display)
        let again = try collector.snapshot(page: "GtkBox(page1)", after: typed)
        let picture = try Self.checkPicture(again)
        let sameEntry = try again.widgetTree.node("path", try #require(entry["path"] as? String))
        try Self.checkBlanked(entry: sameEntry, secret: secret, in: again, picture: picture)

        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.waitForExit(within: 30) == 0, "stderr: \(app.standardError.suffix(2000))")
    }
}
