public import EventModel
import Foundation
import Synchronization

/// Runs Tests/StudioTests/browser/studio_driver.py (Selenium over Debian's chromium and
/// chromium-driver, installed by Tools/setup.sh) against a studio, bounded in time, and returns
/// the JSON it printed.
public enum BrowserDriver {
    public struct Outcome: Sendable {
        public var exitCode: Int32
        public var seen: JSONValue
        public var stderr: String
    }

    static var script: String { Fixtures.repositoryRoot.appendingPathComponent("Tests/StudioTests/browser/studio_driver.py").path }

    /// Drives the studio at `url`; kills the driver (and its browser) after `timeout` seconds.
    public static func run(url: String, token: String, app: String, page: String, name: String, screenshot: String?, timeout: Double = 120) throws -> Outcome {
        var arguments = ["--url", url, "--token", token, "--app", app, "--page", page, "--name", name]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        return try run(script: script, arguments: arguments, timeout: timeout)
    }

    /// Runs another driver script of Tests/StudioTests/browser (`name`, e.g. `studio_tasks.py`)
    /// the same way: its last line of output is the JSON returned.
    public static func run(driver name: String, arguments: [String], timeout: Double = 240) throws -> Outcome {
        try run(script: Fixtures.repositoryRoot.appendingPathComponent("Tests/StudioTests/browser/\(name)").path, arguments: arguments, timeout: timeout)
    }

    static func run(script: String, arguments: [String], timeout: Double) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes on their own threads, so a chatty driver never blocks on a full pipe.
        let output = PipeReader(out.fileHandleForReading)
        let errors = PipeReader(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        process.waitUntilExit()
        let text = output.text()
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        return Outcome(
            exitCode: process.terminationStatus, seen: (try? JSONValue.parse(line)) ?? .object(JSONObject([("unparsed", .string(text))])),
            stderr: errors.text())
    }

    /// Collects what a pipe delivers until it closes (or 5 s after asked, should a browser left
    /// behind by a killed driver hold it open).
    final class PipeReader: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                let bytes = handle.readDataToEndOfFile()
                self.data.withLock { $0 = bytes }
                self.done.signal()
            }
        }

        func text() -> String {
            _ = done.wait(timeout: .now() + 5)
            return String(decoding: data.withLock { $0 }, as: UTF8.self)
        }
    }
}
