import Collector
import CommandSupport
import EventStore
import Foundation
import SQLiteStore
import SystemCalls
import TestSupport
import Testing

/// The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by
/// Tools/setup.sh) loads the file, must log no console message (an SVG attribute it cannot
/// use is one), and its DOM must hold every section.
@Suite struct ReportBrowserTests {
    static let sections = [
        "filters", "totals", "trend", "funnel", "retention", "dwell", "next-pages", "rage-clicks", "events", "pages", "rules",
        "kvc-errors", "rejected",
    ]

    /// A database of seeded shop traffic and its HTML report with a funnel and a retention table.
    static func report() throws -> (html: URL, store: SQLiteEventStore) {
        let dir = Fixtures.temporaryDirectory("browser")
        let store = try SQLiteEventStore(path: dir.appendingPathComponent("events.sqlite").path)
        var traffic = ShopTraffic(users: 60, days: 10)
        try traffic.batches(total: 4_000) { batch in _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: batch)) }
        let html = dir.appendingPathComponent("report.html")
        let r = collector(
            "report", "--db", store.path, "--format", "html", "--out", html.path, "--app", "shop", "--since", "2026-11-01",
            "--step", "page_enter:HomeViewController", "--step", "page_enter:ProductDetailViewController", "--step", "click:PAY",
            "--start", "app_start:launch", "--return", "app_start:launch")
        precondition(r.code == .success, r.err)
        return (html, store)
    }

    @Test(.timeLimit(.minutes(3))) func chromiumRendersEverySectionWithoutConsoleMessages() throws {
        let chromium = "/usr/bin/chromium"
        try #require(FileManager.default.isExecutableFile(atPath: chromium), "no \(chromium): run Tools/setup.sh (it installs Debian's chromium)")
        let (html, _) = try Self.report()
        let profile = Fixtures.temporaryDirectory("chromium-profile")
        let run = try runProgram(
            chromium,
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--user-data-dir=\(profile.path)",
                "--enable-logging=stderr", "--v=0", "--dump-dom", html.absoluteString,
            ], timeout: 120)
        #expect(run.status == 0, "chromium exited \(run.status): \(run.errors)")
        // Console messages (script errors, SVG attributes it rejected) are logged as CONSOLE lines.
        let console = run.errors.split(separator: "\n").filter { $0.contains("CONSOLE") }
        #expect(console.isEmpty, "console: \(console.joined(separator: "\n"))")
        for id in Self.sections { #expect(run.output.contains("id=\"\(id)\""), "section \(id) missing from the rendered DOM") }
        #expect(run.output.contains("<polyline"))
        #expect(run.output.contains("class=\"retention\""))
        #expect(run.output.contains("rect class=\"funnel\""))
    }
}
