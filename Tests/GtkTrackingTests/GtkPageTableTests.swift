import Foundation
import Testing
import TestSupport

/// Pages of one GTK class told apart by the event table (its page ids and screen labels looked up
/// by the page's name with its alias first), and clicks outside the pages (a header bar, a dialog)
/// counted on the page shown beneath (docs/gtk.md "Pages in the event table", "Header bars and dialogs").
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct GtkPageTableTests {
    @Test func pagesOfOneClassHaveTheirOwnIdsAndHeaderBarClicksCountOnThePageBeneath() throws {
        let dir = Fixtures.temporaryDirectory("gtk-factory-page-table")
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let table = dir.appendingPathComponent("events.json")
        try Data(
            """
            {
              "GtkBox(page1)": {"PageEventIDs": {"Enter": "FACTORY_PAGE1_ENTER", "Leave": "FACTORY_PAGE1_LEAVE"}},
              "GtkBox(page3)": {"PageEventIDs": {"Enter": "FACTORY_PAGE3_ENTER", "Leave": "FACTORY_PAGE3_LEAVE"}},
              "GtkOverlay": {"PageEventIDs": {"Enter": "FACTORY_OVERLAY_ENTER", "Leave": "FACTORY_OVERLAY_LEAVE"}}
            }
            """.utf8
        ).write(to: table)
        let screens = dir.appendingPathComponent("screens.json")
        try Data(
            """
            {"trackedScreens": [{"class": "GtkBox(page1)", "label": "Page one"}, {"class": "GtkBox(page3)", "label": "Page three"}]}
            """.utf8
        ).write(to: screens)
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory(display: display, directory: dir, configs: [table.path, screens.path])
        let buttons = try app.switcherButtons()
        try app.showPage(2, on: display)
        _ = try WidgetTree.wait(directory: app.trees, page: "GtkOverlay(page2)")
        try app.showPage(3, on: display)
        _ = try WidgetTree.wait(directory: app.trees, page: "GtkBox(page3)")
        try display.xdotool(["key", "ctrl+q"])
        #expect(try app.process.waitForExit(within: 30) == 0, "stderr: \(app.process.standardError.suffix(2000))")
        let events = try ndjsonEvents(app.events)

        func pageEvents(_ path: String) -> [[String: Any]] {
            events.filter { ["page_enter", "page_leave"].contains($0.string("type")) && $0.string("path") == path }
        }
        // Page 1 and page 3 are both GtkBox pages: each has its own ids and label, by its alias.
        let first = pageEvents("GtkBox(page1)&0")
        #expect(first.map { $0.string("name") } == ["FACTORY_PAGE1_ENTER", "FACTORY_PAGE1_LEAVE"])
        #expect(first.first?.props["label"] as? String == "Page one")
        #expect(first.first?.props["code"] as? String == "GtkBox(page1)")
        let third = pageEvents("GtkBox(page3)&0")
        #expect(third.map { $0.string("name") } == ["FACTORY_PAGE3_ENTER", "FACTORY_PAGE3_LEAVE"])
        #expect(third.first?.props["label"] as? String == "Page three")
        // Page 2 has no entry of its own: its type's.
        #expect(pageEvents("GtkOverlay(page2)&0").map { $0.string("name") } == ["FACTORY_OVERLAY_ENTER", "FACTORY_OVERLAY_LEAVE"])
        // Other GtkBox pages (inside the pages, or windows of their own) match neither alias.
        #expect(!events.contains { $0.string("type") == "page_enter" && $0.string("path") != "GtkBox(page1)&0"
            && $0.string("path") != "GtkBox(page3)&0" && ($0.string("name") ?? "").hasPrefix("FACTORY_PAGE") })

        // The switcher's buttons are in the header bar, outside the pages: their events count on
        // the page shown beneath when clicked; their event codes still name the window.
        let switched = events.filter { $0.string("type") == "value_changed" && ($0.string("path") ?? "").hasPrefix("GtkApplicationWindow-GtkHeaderBar-") }
        let paths = [buttons[1], buttons[2]].map { $0["path"] as? String }
        #expect(switched.map { $0.string("path") } == paths, "\(switched.map { $0.string("path") ?? "?" })")
        #expect(switched.map { $0.string("page") } == ["GtkBox(page1)", "GtkOverlay(page2)"])
        #expect(switched.allSatisfy { ($0.string("name") ?? "").hasPrefix("GtkApplicationWindow#") })
    }

    @Test func aDialogsClicksCountOnThePageThatOpenedIt() throws {
        // gtk4-demo's dialog demo: a window (its own page) whose button opens a message dialog.
        let dir = Fixtures.temporaryDirectory("gtk-demo-dialog")
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = try VirtualDisplay()
        defer { display.stop() }
        let app = try DebianProgramTrackingTests.WidgetFactory.demo("dialog", title: "Dialogs", display: display, directory: dir)
        let page = try WidgetTree.wait(directory: app.trees, page: "GtkWindow")
        let open = try #require(page.nodes.first { $0["type"] as? String == "GtkButton" && ($0["title"] as? String ?? "").contains("Message Dialog") })
        let o = try WidgetTree.center(open)
        try display.click(window: app.window, x: o.x, y: o.y)
        let dialogTree = try WidgetTree.wait(directory: app.trees, page: "GtkMessageDialog")
        let ok = try #require(
            dialogTree.nodes.first { $0["type"] as? String == "GtkButton" && ($0["title"] as? String ?? "").contains("OK") && $0["frame"] != nil },
            "the dialog's OK button")
        // The dialog has no title: it is the program's other shown window.
        let windows = try display.xdotool(["search", "--onlyvisible", "--class", "gtk4-demo"]).split(separator: "\n").map(String.init)
        let dialog = try #require(windows.last { $0 != app.window }, "windows \(windows), the demo's \(app.window)")
        let k = try WidgetTree.center(ok)
        try display.click(window: dialog, x: k.x, y: k.y)
        let events = try GtkImpressionTests.events(in: app.events) { events in
            events.contains { $0.string("type") == "click" && ($0.string("path") ?? "").hasPrefix("GtkMessageDialog") }
        }
        let opened = try #require(events.first { $0.string("type") == "click" && $0.string("path") == open["path"] as? String })
        #expect(opened.string("page") == "GtkWindow")
        let closed = try #require(events.first { $0.string("type") == "click" && ($0.string("path") ?? "").hasPrefix("GtkMessageDialog") })
        #expect(closed.string("path") == ok["path"] as? String)
        #expect(closed.string("page") == "GtkWindow", "the page the dialog was opened over, not the dialog")
        #expect((closed.string("name") ?? "").hasPrefix("GtkMessageDialog#"), "the event code names the dialog's window")
        _ = try? app.terminate()
    }
}
