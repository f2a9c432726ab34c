import Foundation
import Testing
import TestSupport

/// Every command's `--help` EXAMPLES, run as printed by the built tools.
///
/// How they run (the choices this test makes, so the examples must hold under them):
/// - each command's examples run in order as one bash script (`set -e`), in a fresh temporary
///   directory holding a copy of the repository's `Examples/` and `Modules/DemoShop/` (what the
///   examples name), with the built tools first on `PATH`, `$ADMIN` and `$INGEST` set;
/// - a line ending in `&` (a collector started for the lines after it) runs in the background and
///   is killed when the script ends; a `serve` line without `&` is started the same way, since it
///   would run until stopped;
/// - `127.0.0.1:7070` and `0.0.0.0:7070` become a free loopback port, so runs do not collide;
/// - an indented line that does not start with a tool's name (or `printf`) is the output of the
///   command above it, and must equal it;
/// - `autotrack-agent drift` may exit 1: its example shows rules that a new build breaks, and
///   exit 1 is how drift reports them (any other status fails); so may an `autotrack-collector
///   alert` line with no output under it (exit 1: some rule is over the threshold);
/// - `run`'s examples are left out: they start GTK programs and need a display (the GtkTracking
///   tests run them under Xvfb).
@Suite struct HelpExamplesTests {
    static let tools = [("autotrack-agent", Binaries.agent), ("autotrack-collector", Binaries.collector)]

    /// An example command and the output lines printed under it.
    struct Example {
        var command: String
        var output: [String] = []
    }

    /// The EXAMPLE(S) section of a help text, continuation lines joined.
    static func examples(inHelp help: String) -> [Example] {
        var lines: [String] = []
        var inSection = false
        for raw in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line == "EXAMPLE:" || line == "EXAMPLES:" {
                inSection = true
                continue
            }
            guard inSection else { continue }
            if line.isEmpty { break }
            if let last = lines.last, last.hasSuffix("\\") {
                lines[lines.count - 1] = String(last.dropLast()).trimmingCharacters(in: .whitespaces) + " " + line
            } else {
                lines.append(line)
            }
        }
        var out: [Example] = []
        for line in lines {
            if ["autotrack-", "printf "].contains(where: { line.hasPrefix($0) }) || out.isEmpty {
                out.append(Example(command: line))
            } else {
                out[out.count - 1].output.append(line)
            }
        }
        return out
    }

    static func commands(of tool: URL) throws -> [String] {
        let help = try runCommand(tool, ["--help"], within: 30).out
        guard let start = help.range(of: "COMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("  ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func everyHelpExampleRunsAsPrinted() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Binaries.collector.path),
            "the collector binary \(Binaries.collector.path) is missing: run `swift build` first (Tools/test.sh does)")
        var checked = 0
        for (name, tool) in Self.tools {
            for command in try Self.commands(of: tool) where command != "run" {
                let help = try runCommand(tool, [command, "--help"], within: 30).out
                let examples = Self.examples(inHelp: help)
                #expect(!examples.isEmpty, "\(name) \(command) --help has no EXAMPLE")
                guard !examples.isEmpty else { continue }
                let result = try runExamples(examples)
                #expect(result.status == 0, "\(name) \(command) examples failed (\(result.status)):\n\(result.err)\n\(result.out)")
                checked += examples.count
            }
        }
        #expect(checked >= 15)
    }

    /// Runs `examples` as one script in a fresh directory; bounded by 180 s.
    func runExamples(_ examples: [Example]) throws -> CommandResult {
        let dir = Fixtures.temporaryDirectory("help-examples")
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = Fixtures.repositoryRoot
        try FileManager.default.copyItem(at: root.appendingPathComponent("Examples"), to: dir.appendingPathComponent("Examples"))
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Modules"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: root.appendingPathComponent("Modules/DemoShop"), to: dir.appendingPathComponent("Modules/DemoShop"))
        // A free port: one a collector had, once it has stopped.
        let probe = try ServeProcess(db: dir.appendingPathComponent("probe.sqlite"))
        let port = probe.port
        try probe.stop()
        try? FileManager.default.removeItem(at: dir.appendingPathComponent("probe.sqlite"))

        var script = """
            set -e
            trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
            export PATH='\(Binaries.agent.deletingLastPathComponent().path)':"$PATH" ADMIN=admin-secret INGEST=ingest-secret
            cd '\(dir.path)'

            """
        for (i, example) in examples.enumerated() {
            var line = example.command
                .replacingOccurrences(of: "127.0.0.1:7070", with: "127.0.0.1:\(port)")
                .replacingOccurrences(of: "0.0.0.0:7070", with: "127.0.0.1:\(port)")
            if line.hasPrefix("autotrack-collector serve"), !line.hasSuffix("&") { line += " &" }
            script += "echo '+ \(example.command.replacingOccurrences(of: "'", with: ""))' >&2\n"
            if line.hasPrefix("autotrack-agent drift") || (line.hasPrefix("autotrack-collector alert") && example.output.isEmpty) {
                script += "\(line) || [ $? -eq 1 ]\n"
            } else if example.output.isEmpty {
                script += line + "\n"
            } else {
                let expected = dir.appendingPathComponent("expected-\(i).txt")
                try Data((example.output.joined(separator: "\n") + "\n").utf8).write(to: expected)
                script += "\(line) > got-\(i).txt\n"
                script += "diff got-\(i).txt '\(expected.path)' >&2\n"
            }
        }
        let file = dir.appendingPathComponent("examples.sh")
        try Data(script.utf8).write(to: file)
        return try runCommand(URL(fileURLWithPath: "/bin/bash"), [file.path], within: 180)
    }
}
