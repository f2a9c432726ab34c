import Foundation

/// The command line of a tool under `Tools/`: every benchmark and probe reads its arguments
/// through one of these, so each answers `--help`/`-h` with its usage (what it measures, its
/// options, an example that runs as printed; exit 0) and refuses an unknown argument or a bad
/// value on stderr with what, where and how to fix (exit 2). `--quick` is always accepted
/// (`Benchmark.isQuick` reads it).
///
///     let arguments = ToolArguments("md5-bench", usage: Benchmark.usage(...))
///     arguments.read { option in
///         switch option {
///         case "--rounds": rounds = arguments.count(after: option); return true
///         default: return false
///         }
///     }
public final class ToolArguments {
    /// The tool's name, as its messages start.
    public let tool: String
    /// What `--help` prints.
    public let usage: String
    private let arguments: [String]
    private var next = 0

    public init(_ tool: String, usage: String, arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        self.tool = tool
        self.usage = usage
        self.arguments = arguments
    }

    /// Each argument in turn to `option`, which takes the values it needs (`value(after:)`,
    /// `count(after:)`) and returns false for one it does not know. `--help`/`-h` print the usage
    /// and exit 0 first; `--quick` is accepted when `option` does not take it; anything else exits 2.
    public func read(_ option: (String) -> Bool = { _ in false }) {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            exit(0)
        }
        while next < arguments.count {
            let argument = arguments[next]
            next += 1
            if option(argument) || argument == "--quick" { continue }
            reject("unknown argument '\(argument)' (argument \(next))")
        }
    }

    /// The argument after `option`, or exit 2 saying it is missing.
    public func value(after option: String, _ what: String = "a value") -> String {
        guard next < arguments.count else { reject("\(option) needs \(what) after it") }
        next += 1
        return arguments[next - 1]
    }

    /// The positive whole number after `option`, or exit 2 saying what is wrong with it.
    public func count(after option: String) -> Int {
        let text = value(after: option, "a positive whole number")
        guard let n = Int(text), n > 0 else { reject("\(option) needs a positive whole number, not '\(text)'") }
        return n
    }

    /// Writes "tool: `problem`; see --help" to stderr and exits 2 (a usage error).
    public func reject(_ problem: String) -> Never {
        Benchmark.complain("\(tool): \(problem); see --help")
        exit(2)
    }
}

extension Benchmark {
    /// A tool's `--help` text in the one shape every tool prints: `usage: TOOL [--quick] OPTIONS…`,
    /// what it measures, each option with its explanation (`--quick` and `--help` added), and
    /// `example`, a command line that runs as printed.
    public static func usage(
        _ tool: String, measures: String, options: [(String, String)] = [], quick: String = "a short run, to check the tool works",
        example: String
    ) -> String {
        let all = [("--quick", quick)] + options + [("-h, --help", "this text")]
        let width = all.map(\.0.count).max()! + 2
        let synopsis = ([tool, "[--quick]"] + options.map { "[\($0.0)]" }).joined(separator: " ")
        return "usage: \(synopsis)\n\(measures)\noptions:\n"
            + all.map { "  " + label($0.0, width: width) + $0.1 }.joined(separator: "\n")
            + "\nexample: \(example)"
    }
}
