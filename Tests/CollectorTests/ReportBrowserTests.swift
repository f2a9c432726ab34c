import Collector
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
        let run = try BoundedProcess.run(
            chromium,
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--user-data-dir=\(profile.path)",
                "--enable-logging=stderr", "--v=0", "--dump-dom", html.absoluteString,
            ], seconds: 120)
        #expect(run.status == 0, "chromium exited \(run.status): \(run.err)")
        // Console messages (script errors, SVG attributes it rejected) are logged as CONSOLE lines.
        let console = run.err.split(separator: "\n").filter { $0.contains("CONSOLE") }
        #expect(console.isEmpty, "console: \(console.joined(separator: "\n"))")
        for id in Self.sections { #expect(run.out.contains("id=\"\(id)\""), "section \(id) missing from the rendered DOM") }
        #expect(run.out.contains("<polyline"))
        #expect(run.out.contains("class=\"retention\""))
        #expect(run.out.contains("rect class=\"funnel\""))
    }
}

/// Runs a program with a deadline: killed (and reported) when it runs longer.
enum BoundedProcess {
    struct Result {
        var status: Int32
        var out: String
        var err: String
    }

    static func run(_ path: String, _ arguments: [String], seconds: Double) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let dir = Fixtures.temporaryDirectory("process")
        let outURL = dir.appendingPathComponent("out"), errURL = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: outURL)
        p.standardError = try FileHandle(forWritingTo: errURL)
        try p.run()
        let deadline = Date().addingTimeInterval(seconds)
        while p.isRunning, Date() < deadline { Posix.sleep(.milliseconds(50)) }
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
            return Result(status: -1, out: "", err: "killed after \(seconds) s")
        }
        p.waitUntilExit()
        return Result(
            status: p.terminationStatus, out: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            err: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
