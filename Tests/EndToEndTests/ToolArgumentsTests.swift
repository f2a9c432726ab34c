import Foundation
import Testing
import TestSupport

/// Every executable under `Tools/` (each folder with a `main.swift`, so a new tool is covered as
/// it is added) and the shell scripts there read their command line like the commands do:
/// `--help` prints a usage with an example (exit 0), an unknown argument is refused on stderr,
/// named (exit 2). The debug builds are run; neither case starts any measuring.
@Suite(.timeLimit(.minutes(3))) struct ToolArgumentsTests {
    static let toolsDirectory = Fixtures.repositoryRoot.appendingPathComponent("Tools")

    /// The executables under Tools/: folders with a main.swift.
    static func tools() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: toolsDirectory.path).sorted().filter {
            FileManager.default.fileExists(atPath: toolsDirectory.appendingPathComponent("\($0)/main.swift").path)
        }
    }

    @Test func everyToolAnswersHelpWithUsageAndARunnableExample() throws {
        let tools = try Self.tools()
        #expect(tools.count >= 15, "Tools/ holds \(tools)")
        for tool in tools {
            for flag in ["--help", "-h"] {
                let result = try runCommand(Binaries.path(tool), [flag], within: 30)
                #expect(result.status == 0, "\(tool) \(flag) exited \(result.status): \(result.err)")
                #expect(result.out.hasPrefix("usage: \(tool)"), "\(tool) \(flag) printed:\n\(result.out)")
                let example = result.out.split(separator: "\n").first { $0.hasPrefix("example: ") }
                #expect(example?.hasPrefix("example: swift run -c release \(tool)") == true, "\(tool) \(flag): no example running it:\n\(result.out)")
                // Every option the example passes is one the usage names (the example line aside).
                let usage = result.out.split(separator: "\n").filter { !$0.hasPrefix("example: ") }.joined(separator: "\n")
                for option in (example ?? "").split(separator: " ").filter({ $0.hasPrefix("--") }) {
                    #expect(usage.contains(option), "\(tool)'s example passes \(option), which its usage does not name")
                }
            }
        }
    }

    @Test func everyToolRefusesAnUnknownArgumentNamingIt() throws {
        for tool in try Self.tools() {
            let result = try runCommand(Binaries.path(tool), ["--quick", "--no-such-option"], within: 30)
            #expect(result.status == 2, "\(tool) --no-such-option exited \(result.status)")
            #expect(result.err.contains("'--no-such-option'") && result.err.contains("see --help"), "\(tool) said: \(result.err)")
            #expect(result.out.isEmpty, "\(tool) started before refusing: \(result.out)")
        }
    }

    @Test func aBadValueIsRefusedSayingWhatItNeeds() throws {
        let missing = try runCommand(Binaries.path("pipeline-bench"), ["--events"], within: 30)
        #expect(missing.status == 2)
        #expect(missing.err.contains("--events needs a positive whole number"), "\(missing.err)")
        let zero = try runCommand(Binaries.path("analytics-bench"), ["--rounds", "0"], within: 30)
        #expect(zero.status == 2)
        #expect(zero.err.contains("--rounds needs a positive whole number, not '0'"), "\(zero.err)")
        let mode = try runCommand(Binaries.path("hooks-bench"), ["--only", "everything"], within: 30)
        #expect(mode.status == 2)
        #expect(mode.err.contains("--only takes observer or pipeline, not 'everything'"), "\(mode.err)")
    }

    @Test func theShellScriptsAnswerHelpBeforeSettingAnythingUp() throws {
        for script in ["benchmarks.sh", "demo.sh", "test.sh", "setup.sh"] {
            let result = try runCommand(URL(fileURLWithPath: "/bin/bash"), [Self.toolsDirectory.appendingPathComponent(script).path, "--help"], within: 30)
            #expect(result.status == 0, "\(script) --help exited \(result.status): \(result.err)")
            #expect(result.out.hasPrefix("usage: Tools/\(script)"), "\(script) --help printed:\n\(result.out)")
            #expect(result.out.contains("\nexample: Tools/\(script)"), "\(script) --help has no example:\n\(result.out)")
        }
        for script in ["benchmarks.sh", "setup.sh"] {
            let result = try runCommand(URL(fileURLWithPath: "/bin/bash"), [Self.toolsDirectory.appendingPathComponent(script).path, "--no-such-option"], within: 30)
            #expect(result.status == 2, "\(script) --no-such-option exited \(result.status)")
            #expect(result.err.contains("--no-such-option"), "\(script) said: \(result.err)")
        }
    }
}
