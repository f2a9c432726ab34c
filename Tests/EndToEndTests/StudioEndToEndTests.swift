import EventModel
import Foundation
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
}
