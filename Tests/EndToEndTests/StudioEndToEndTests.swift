import EventModel
import Foundation
import Synchronization
import Testing
import TestSupport

/// The studio over a real collector (`serve --studio`): circle mode on from the API, the demo
/// shop sends pictures and clicks, a definition is made in headless Chromium, it counts the
/// clicks made before it, and a running app's CONFIG sees the new rule set.
@Suite(.serialized) struct StudioEndToEndTests {
    static let token = "studio-admin"

    /// `curl` against the studio with the bearer token; the answer's JSON and HTTP status.
    static func api(_ studio: String, _ method: String, _ path: String, json: String? = nil) throws -> (status: Int, body: JSONValue?) {
        var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(token)", studio + path]
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/curl"), arguments, within: 30)
        let lines = result.out.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        return (status, try? JSONValue.parse(lines.dropLast().joined(separator: "\n")))
    }

    /// The `RULES` answer a running shop app gets for `CONFIG`.
    static func config(port: UInt16, etag: String? = nil) throws -> JSONValue {
        let client = try RawATLPClient(port: port)
        _ = try client.request(#"HELLO {"protocol":1,"appKey":"shop","appVersion":"1.2.0"}"#)
        let answer = try client.request(etag.map { #"CONFIG {"etag":"\#($0)"}"# } ?? "CONFIG {}")
        guard answer.hasPrefix("RULES ") else { throw HarnessError(description: "CONFIG answered \(answer)") }
        return try JSONValue.parse(String(answer.dropFirst("RULES ".count)))
    }

    @Test(.timeLimit(.minutes(4))) func circleSnapshotDefineCountAndServe() throws {
        let dir = Fixtures.temporaryDirectory("studio-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(
            db: dir.appendingPathComponent("shop.sqlite"), extra: ["--admin-token", Self.token, "--studio", "127.0.0.1:0"])
        defer { serve.kill() }
        try poll("the studio's address line", within: 30) { serve.process.standardOutput.contains("\nstudio http://") }
        let line = serve.process.standardOutput.split(separator: "\n").first { $0.hasPrefix("studio ") } ?? ""
        let studio = String(line.dropFirst("studio ".count).dropLast())  // http://127.0.0.1:PORT
        #expect(studio.hasPrefix("http://127.0.0.1:"))

        // Circle mode on: the app's CONFIG says so, and the demo agent sends pictures because of it.
        let circle = try Self.api(studio, "POST", "/api/apps/shop/circle", json: #"{"minutes":10}"#)
        #expect(circle.status == 200)
        #expect(circle.body?["circleModeUntil"]?.intValue != nil)
        // (The collector reads circle modes at most once a second.)
        var before: JSONValue = [:]
        try poll("CONFIG asking for pictures", within: 5) {
            before = try Self.config(port: serve.port)
            return before["snapshots"] == true
        }
        let demo = try runCommand(Binaries.agent, ["demo", "--to", serve.address], within: 90)
        #expect(demo.status == 0, "\(demo.err)")
        var pictures: [JSONValue] = []
        try poll("the demo's pictures", within: 20) {
            pictures = try Self.api(studio, "GET", "/api/snapshots?app=shop").body?["snapshots"]?.arrayValue ?? []
            return pictures.contains { $0["page"] == "HomeViewController" }
        }
        let apps = try Self.api(studio, "GET", "/api/apps").body?["apps"]?.arrayValue ?? []
        #expect(apps.first?["appKey"] == "shop")
        #expect(apps.first?["versions"] == ["1.2.0"])

        // The definition, made in the page: every row of the home page's product list.
        let screenshot = dir.appendingPathComponent("studio.png").path
        let outcome = try BrowserDriver.run(
            url: studio, token: Self.token, app: "shop", page: "HomeViewController", name: "Product row", screenshot: screenshot)
        #expect(outcome.exitCode == 0, "\(outcome.seen.jsonText)\n\(outcome.stderr)")
        let seen = outcome.seen
        let pattern = try #require(seen["pattern"]?.stringValue)
        #expect(pattern.hasPrefix("HomeViewController-") && pattern.hasSuffix(":*"))
        #expect((seen["highlighted"]?.intValue ?? 0) > 1)
        #expect(seen["consoleErrors"] == [])
        #expect(FileManager.default.contents(atPath: screenshot)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        if ProcessInfo.processInfo.environment["STUDIO_SCREENSHOT_UPDATE"] == "1" {
            let docs = Fixtures.docsDirectory.appendingPathComponent("images/studio.png")
            try? FileManager.default.removeItem(at: docs)
            try FileManager.default.copyItem(atPath: screenshot, toPath: docs.path)
        }

        // It counts the demo's row clicks, made before it existed, as the preview said.
        let id = try #require(seen["id"]?.stringValue)
        let counts = try Self.api(studio, "GET", "/api/rules/\(id)/counts")
        #expect(counts.status == 200)
        let total = try #require(counts.body?["total"]?.intValue)
        #expect(total > 0)
        #expect(seen["previewTotal"]?.intValue == total)

        // A page named in the studio is listed by that name from the collector's store.
        let pages = try Self.api(studio, "GET", "/api/pages?app=shop").body?["pages"]?.arrayValue ?? []
        #expect(pages.filter { $0["page"] == "HomeViewController" }.count == 1, "\(pages)")
        let named = try Self.api(studio, "PUT", "/api/pages/HomeViewController?app=shop", json: #"{"name":"Shop front"}"#)
        #expect(named.status == 200 && named.body?["name"] == "Shop front", "\(String(describing: named.body))")
        let renamed = try Self.api(studio, "GET", "/api/pages?app=shop").body?["pages"]?.arrayValue ?? []
        #expect(renamed.first { $0["page"] == "HomeViewController" }?["name"] == "Shop front", "\(renamed)")

        // A running app's next CONFIG: a new etag, and the rule in it.
        let after = try Self.config(port: serve.port, etag: before["etag"]?.stringValue)
        #expect(after["etag"] != before["etag"])
        #expect(after["unchanged"] == nil)
        #expect(after["rules"]?.arrayValue?.contains { $0["id"] == .string(id) && $0["name"] == "Product row" } == true)

        // Circle mode off: CONFIG no longer asks for pictures.
        #expect(try Self.api(studio, "POST", "/api/apps/shop/circle", json: #"{"minutes":0}"#).status == 200)
        try poll("CONFIG without snapshots", within: 5) { try Self.config(port: serve.port)["snapshots"] == nil }
        try serve.stop()
    }

    /// Circle mode's sign of life over the real agent and collector: the page turns it on,
    /// `autotrack-agent demo` (without `--snapshots`) picks it up from its `CONFIG` and sends
    /// pictures naming its device, and the page lists that device with the time of its last
    /// picture; a device whose pictures came before circle mode was turned on is not listed.
    @Test(.timeLimit(.minutes(5))) func circleModeListsTheDevicesThatSentAPictureSinceItWasTurnedOn() throws {
        let dir = Fixtures.temporaryDirectory("studio-devices")
        defer { try? FileManager.default.removeItem(at: dir) }
        let serve = try ServeProcess(
            db: dir.appendingPathComponent("shop.sqlite"),
            extra: ["--admin-token", Self.token, "--studio", "127.0.0.1:0", "--accept-snapshots"])
        defer { serve.kill() }
        try poll("the studio's address line", within: 30) { serve.process.standardOutput.contains("\nstudio http://") }
        let line = serve.process.standardOutput.split(separator: "\n").first { $0.hasPrefix("studio ") } ?? ""
        let studio = String(line.dropFirst("studio ".count).dropLast())
        func devices() throws -> [String: Int] {
            let pictures = try Self.api(studio, "GET", "/api/snapshots?app=shop").body?["snapshots"]?.arrayValue ?? []
            var counts: [String: Int] = [:]
            for p in pictures { counts[p["device"]?.stringValue ?? "", default: 0] += 1 }
            return counts
        }

        // An earlier device: pictures forced with --snapshots, which this collector accepts unasked.
        let first = try runCommand(Binaries.agent, ["demo", "--snapshots", "--to", serve.address], within: 90)
        #expect(first.status == 0, "\(first.err)")
        var earlier: [String: Int] = [:]
        try poll("the first device's pictures", within: 20) {
            earlier = try devices()
            return !earlier.isEmpty
        }
        let earlierDevice = try #require(earlier.keys.first)
        #expect(earlier.count == 1)
        #expect(earlierDevice.hasPrefix("d-") && earlierDevice.utf8.count == 34, "\(earlier)")

        // Beside the page: once it turned circle mode on, a second run asks CONFIG and sends pictures.
        let port = serve.port, address = serve.address
        let second = Mutex<(status: Int32, err: String)?>(nil)
        let helper = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { helper.signal() }
            do {
                try poll("circle mode turned on in the page", within: 90) {
                    try Self.api(studio, "GET", "/api/apps").body?["apps"]?.arrayValue?.first?["circleModeUntil"]?.intValue != nil
                }
                try poll("CONFIG asking for pictures", within: 5) { try Self.config(port: port)["snapshots"] == true }
                let run = try runCommand(Binaries.agent, ["demo", "--to", address], within: 90)
                second.withLock { $0 = (run.status, run.err) }
            } catch {
                second.withLock { $0 = (-1, "\(error)") }
            }
        }
        let outcome = try BrowserDriver.run(
            driver: "studio_tasks.py", arguments: ["--url", studio, "--token", Self.token, "--tasks", "devices", "--step-timeout", "120"],
            timeout: 240)
        _ = helper.wait(timeout: .now() + 120)
        #expect(second.withLock { $0?.status } == 0, "\(second.withLock { $0?.err ?? "not run" })")
        #expect(outcome.exitCode == 0, "\(outcome.seen.jsonText)\n\(outcome.stderr.suffix(3000))")
        #expect(outcome.seen["consoleErrors"] == [])
        let seen = try #require(outcome.seen["devices"])

        // The page named the new device only, with its pictures and the time of the last.
        let now = try devices()
        let newDevices = now.keys.filter { $0 != earlierDevice }
        #expect(newDevices.count == 1, "\(now)")
        let device = try #require(newDevices.first)
        #expect(device.hasPrefix("d-") && device.utf8.count == 34)
        #expect(seen["before"]?.stringValue?.hasPrefix("No picture since") == true, "\(seen.jsonText)")
        #expect(seen["devices"] == [.string(device)], "\(seen.jsonText)")
        // (The page may have shown it before the run sent its last picture: at most as many as stored.)
        let after = seen["after"]?.stringValue ?? ""
        let prefix = "device \(device) (version 1.2.0): "
        let shown = after.range(of: prefix).map { Int(after[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect((1...max(now[device] ?? 0, 1)).contains(shown), "\(after) \(now)")
        #expect(after.contains(", the last at "), "\(after)")
        #expect(!after.contains(earlierDevice), "\(after)")
        try serve.stop()
    }
}
