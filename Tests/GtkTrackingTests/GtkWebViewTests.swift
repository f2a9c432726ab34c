import Foundation
import Testing
import TestSupport

/// Web views (docs/gtk.md "Web views"): the tests' own WebKitGTK app, with no tracking code,
/// loading local pages under `autotrack-agent run`: page loads and the user's clicks inside the
/// page arrive in the same event stream as the widgets', a clicked element's path being its DOM
/// path under the web view's.
@Suite(
    .serialized, .timeLimit(.minutes(5)))
struct GtkWebViewTests {
    static let webView = "GtkApplicationWindow-GtkBox-WebKitWebView&0-0-0"

    @Test func pageLoadsAndTheUsersClicksInAWebViewAreEventsWithDOMPathsUnderTheWebView() throws {
        let dir = Fixtures.temporaryDirectory("gtk-webview")
        defer { try? FileManager.default.removeItem(at: dir) }
        let site = dir.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        // Elements at fixed places, so the test knows where to click; a button the page's own
        // script clicks (not the user: no event).
        try Data(
            """
            <!doctype html><html><head><title>Local page</title>
            <style>body{margin:0} button,a{position:absolute;display:block;width:200px;height:60px}</style></head>
            <body><button id="buy" style="left:20px;top:20px">Buy now</button>
            <div><a href="second.html" style="left:20px;top:120px">Second page</a></div>
            <button id="auto" style="left:20px;top:220px">Auto</button>
            <div class="autotrack-ignore"><button style="left:20px;top:320px">Secret</button></div>
            <script>setTimeout(function () { document.getElementById('auto').click(); }, 300);</script>
            </body></html>
            """.utf8
        ).write(to: site.appendingPathComponent("index.html"))
        try Data("<!doctype html><html><head><title>Second</title></head><body><p>Two</p></body></html>".utf8)
            .write(to: site.appendingPathComponent("second.html"))
        let first = site.appendingPathComponent("index.html").absoluteString
        let second = site.appendingPathComponent("second.html").absoluteString

        let display = try VirtualDisplay()
        defer { display.stop() }
        // WebKit's sandbox needs user namespaces, which a test container may not grant.
        let app = try DebianProgramTrackingTests.WidgetFactory(
            display: display, directory: dir, program: [Built.webViewSample, first], appKey: "web",
            firstPage: "GtkApplicationWindow", title: "Web Sample", environment: ["WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS": "1"])
        let window = try WidgetTree.wait(directory: app.trees, page: "GtkApplicationWindow")
        let frame = try #require((try window.node("path", Self.webView)["frame"] as? [NSNumber])?.map(\.intValue))
        func loads(_ events: [[String: Any]]) -> [[String: Any]] {
            events.filter { $0.string("type") == "page_enter" && $0.string("path") == Self.webView }
        }
        let loaded = try GtkImpressionTests.events(in: app.events) { loads($0).count == 1 }
        let load = loads(loaded)[0]
        #expect(load.string("name") == "GtkApplicationWindow#WebKitWebView#load")
        #expect(load.string("page") == "GtkApplicationWindow")
        #expect(load.props["url"] as? String == first)
        #expect(load.props["title"] as? String == "Local page")
        // The page's own click on "Auto" has had time to happen.
        Thread.sleep(forTimeInterval: 1)

        // A button inside an ignored element, the button, then the link to the second page.
        try display.click(window: app.window, x: frame[0] + 120, y: frame[1] + 350)
        try display.click(window: app.window, x: frame[0] + 120, y: frame[1] + 50)
        _ = try GtkImpressionTests.events(in: app.events) { $0.contains { $0.string("type") == "click" } }
        try display.click(window: app.window, x: frame[0] + 120, y: frame[1] + 150)
        let all = try GtkImpressionTests.events(in: app.events) { loads($0).count == 2 }
        let clicks = all.filter { $0.string("type") == "click" }
        try #require(clicks.count == 2, "\(clicks.map { $0.string("path") ?? "?" })")
        #expect(clicks[0].string("path") == "GtkApplicationWindow-GtkBox-WebKitWebView-HTML-BODY-BUTTON&0-0-0-0-0-0")
        #expect(clicks[0].string("name") == "GtkApplicationWindow#buy#click")
        #expect(clicks[0].props["title"] as? String == "Buy now")
        #expect(clicks[0].props["url"] as? String == first)
        #expect(clicks[0].string("page") == "GtkApplicationWindow")
        #expect(clicks[1].string("path") == "GtkApplicationWindow-GtkBox-WebKitWebView-HTML-BODY-DIV-A&0-0-0-0-0-0-0")
        #expect(clicks[1].string("name") == "GtkApplicationWindow#A#click")
        let next = loads(all)[1]
        #expect(next.props["url"] as? String == second)
        #expect(next.props["title"] as? String == "Second")
        // No click for the script's own nor the ignored one, and no GTK gesture for the web view's clicks.
        #expect(!all.contains { $0.props["title"] as? String == "Auto" || $0.props["title"] as? String == "Secret" })
        #expect(!all.contains { $0.string("type") == "gesture" })
        _ = try? app.terminate()
    }
}
