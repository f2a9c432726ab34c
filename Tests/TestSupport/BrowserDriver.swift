public import EventModel
import Foundation

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
        // Output goes to files (runProgram), so a chatty driver never blocks on a full pipe, and a
        // browser a killed driver left behind holds nothing open that we wait on.
        let run = try runProgram("/usr/bin/python3", [script] + arguments, timeout: timeout)
        let text = run.output
        let line = text.split(separator: "\n").last.map(String.init) ?? ""
        return Outcome(
            exitCode: run.status, seen: (try? JSONValue.parse(line)) ?? .object(JSONObject([("unparsed", .string(text))])),
            stderr: run.errors)
    }
}
