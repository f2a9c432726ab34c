import Foundation
import Testing
import TestSupport

/// `autotrack-agent check --tree-dir`: the configuration checked against the GTK shop itself, the
/// trees a run of it wrote (docs/gtk.md "The configuration checked against the app").
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct GtkConfigCheckTests {
    static func check(_ arguments: [String]) throws -> GUIProcess {
        let p = try GUIProcess(Built.agent, ["check"] + arguments, environment: ProcessInfo.processInfo.environment)
        _ = try p.waitForExit(within: 60)
        return p
    }

    @Test func theShopsConfigurationMatchesItsTreesAndDeadEntriesAreNamed() throws {
        let dir = Fixtures.temporaryDirectory("gtk-shop-check")
        defer { try? FileManager.default.removeItem(at: dir) }
        let trees = dir.appendingPathComponent("trees")
        let display = try VirtualDisplay()
        defer { display.stop() }
        let shop = try GUIProcess(
            Built.agent, ["run", "--app-key", "shop", "--out", dir.appendingPathComponent("events.ndjson").path, "--tree-dir", trees.path, "--", Built.shop],
            environment: display.environment())
        defer { shop.kill() }
        // The window's tree holds every page of its stack (shown or not), and the home page's tree.
        _ = try WidgetTree.wait(directory: trees, page: "GtkBox(home)")
        _ = try WidgetTree.wait(directory: trees, page: "GtkWindow")
        _ = try display.window(titled: "^Autotrack Shop$", of: shop)
        try display.xdotool(["key", "ctrl+q"])
        #expect(try shop.waitForExit(within: 30) == 0, "stderr: \(shop.standardError)")

        // The trees kept in Examples (what `check --help`'s example reads) are this shop's: the
        // same views, with the same targets and actions. A change to the shop's widgets fails here:
        // copy this run's trees there again.
        for page in ["GtkBox(home)", "GtkWindow"] {
            func views(_ tree: WidgetTree) -> [String] {
                tree.nodes.map { "\($0["path"] as? String ?? "?") \($0["target"] as? String ?? "") \($0["actions"] as? [String] ?? [])" }
            }
            let kept = try WidgetTree.wait(directory: URL(fileURLWithPath: Built.example("gtk-shop-trees")), page: page, within: 1)
            #expect(views(kept) == views(try WidgetTree.wait(directory: trees, page: page)), "Examples/gtk-shop-trees/\(page).json")
        }

        // The shop's own configuration: every class, action and rule is in the app.
        let good = try Self.check([
            "--config", Built.example("gtk-shop-events.json"), "--config", Built.example("gtk-shop-rules.json"), "--tree-dir", trees.path,
        ])
        #expect(good.exitStatus == 0, "stdout: \(good.standardOutput) stderr: \(good.standardError)")
        #expect(good.standardOutput.hasPrefix("ok: 3 classes, 3 actions and 10 rules in 2 files match the 2 trees of \(trees.path)"))

        // Entries that match nothing: a page the shop does not have, an action its button does
        // not send, a rule on a view that is not there; the entries that do match say nothing.
        let events = dir.appendingPathComponent("dead-events.json")
        try Data(
            """
            {
              "GtkBox(detail)": {"PageEventIDs": {"Enter": "DETAIL_ENTER", "Leave": "DETAIL_LEAVE"}},
              "GtkBox(checkout)": {"PageEventIDs": {"Enter": "CHECKOUT_ENTER"}},
              "fav": {"ControlEventIDs": {"clicked": "FAV", "toggled": "FAV_TOGGLED"}},
              "gift": {"ControlEventIDs": {"clicked": "GIFT_CLICKED"}}
            }
            """.utf8
        ).write(to: events)
        let rules = dir.appendingPathComponent("dead-rules.json")
        try Data(
            """
            {"rules": [
              {"id": "gone-button", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick", "viewPath": "GtkBox(home)-GtkButton&0-7", "name": "Gone"},
              {"id": "the-sort", "appKey": "shop", "appVersion": "*", "viewEvent": "ValueChanged", "viewPath": "GtkBox(home)-GtkDropDown&0-0", "name": "Sort"},
              {"id": "any-gift", "appKey": "shop", "appVersion": "*", "viewEvent": "ValueChanged", "viewPath": "GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkSwitch&0-0-0-*-*", "name": "Gift"}
            ]}
            """.utf8
        ).write(to: rules)
        let dead = try Self.check(["--config", events.path, "--config", rules.path, "--tree-dir", trees.path])
        #expect(dead.exitStatus == 1)
        #expect(
            dead.standardOutput.split(separator: "\n").map(String.init) == [
                "missing-class GtkBox(checkout): configured at \(events.path): GtkBox(checkout), but the inventory has no such class",
                "missing-action -[fav toggled]: configured at \(events.path): fav.ControlEventIDs.toggled, but fav in the inventory has no such action",
                "missing-action -[gift clicked]: configured at \(events.path): gift.ControlEventIDs.clicked, but gift in the inventory has no such action",
                "unmatched-rule gone-button: viewPath GtkBox(home)-GtkButton&0-7 configured at \(rules.path): rules[0] matches no view in the trees of \(trees.path)",
            ], "\(dead.standardOutput)")
        #expect(dead.standardError.contains("autotrack-agent check: 4 problems found"))

        // No trees there, and both sources at once.
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let none = try Self.check(["--config", events.path, "--tree-dir", empty.path])
        #expect(none.exitStatus == 1)
        #expect(none.standardError.contains("no tree (*.json) in \(empty.path)"), "\(none.standardError)")
        let both = try Self.check(["--config", events.path, "--tree-dir", trees.path, "--inventory", events.path])
        #expect(both.exitStatus == 2)
    }
}
