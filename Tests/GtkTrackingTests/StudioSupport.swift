import Foundation
import TestSupport

/// The built `autotrack-collector serve --studio` as a child process: ATLP and the studio on
/// loopback ephemeral ports, a temporary SQLite database, an admin token; its HTTP API asked with
/// `curl` and the bearer token (docs/studio.md).
final class StudioCollector {
    let process: GUIProcess
    /// `127.0.0.1:PORT` for agents (`--to`).
    let atlp: String
    /// `http://127.0.0.1:PORT`, without the final `/`.
    let studio: String
    let db: String
    let token: String
    private let directory: URL

    init(directory: URL, token: String) throws {
        self.directory = directory
        self.token = token
        db = directory.appendingPathComponent("events.sqlite").path
        process = try GUIProcess(
            Built.collector,
            ["serve", "--listen", "127.0.0.1:0", "--db", db, "--admin-token", token, "--studio", "127.0.0.1:0", "--accept-snapshots"],
            environment: ProcessInfo.processInfo.environment)
        // The first line is `listening on HOST:PORT`, the third `studio http://HOST:PORT/`.
        let deadline = Date().addingTimeInterval(30)
        var lines: [Substring] = []
        while Date() < deadline, process.isRunning {
            lines = process.standardOutput.split(separator: "\n")
            if lines.contains(where: { $0.hasPrefix("studio ") }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let listening = lines.first(where: { $0.hasPrefix("listening on 127.0.0.1:") }),
            let served = lines.first(where: { $0.hasPrefix("studio http://127.0.0.1:") && $0.hasSuffix("/") })
        else {
            process.kill()
            throw HarnessFailure("serve --studio announced no addresses within 30 s: \(lines); stderr: \(process.standardError.suffix(2000))")
        }
        atlp = String(listening.dropFirst("listening on ".count))
        studio = String(served.dropFirst("studio ".count).dropLast())
    }

    deinit { process.kill() }

    /// SIGTERM, then waits for the exit status.
    func stop() throws -> Int32 {
        process.kill(SIGTERM)
        return try process.waitForExit(within: 20)
    }

    /// `method path` with the bearer token (and `json` as the body): the status, the content type
    /// and the body's bytes.
    func request(_ method: String, _ path: String, json: String? = nil) throws -> (status: Int, type: String, body: Data) {
        let body = directory.appendingPathComponent("answer-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: body) }
        var arguments = [
            "-s", "--max-time", "30", "-o", body.path, "-w", "%{http_code} %{content_type}", "-X", method,
            "-H", "Authorization: Bearer \(token)", studio + path,
        ]
        if let json { arguments += ["-H", "Content-Type: application/json", "--data-binary", json] }
        let curl = try GUIProcess("/usr/bin/curl", arguments, environment: ProcessInfo.processInfo.environment)
        guard try curl.waitForExit(within: 40) == 0 else { throw HarnessFailure("curl \(method) \(path) failed: \(curl.standardError)") }
        let status = curl.standardOutput.split(separator: " ", maxSplits: 1)
        return (Int(status.first ?? "") ?? 0, status.count > 1 ? String(status[1]) : "", (try? Data(contentsOf: body)) ?? Data())
    }

    /// `method path` answered 2xx with a JSON object: that object.
    func json(_ method: String, _ path: String, json body: String? = nil) throws -> [String: Any] {
        let answer = try request(method, path, json: body)
        guard (200..<300).contains(answer.status),
            let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        else {
            throw HarnessFailure("\(method) \(path) answered \(answer.status): \(String(decoding: answer.body.prefix(2000), as: UTF8.self))")
        }
        return object
    }
}
