import Synchronization
import SystemCalls

/// A process exit status as a value: 0 success, 1 failure of the work, 2 a usage error.
public struct ExitCode: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    public static let success = ExitCode(0)
    public static let failure = ExitCode(1)
    public static let usage = ExitCode(2)

    public var description: String { String(rawValue) }
}

/// Where a command writes: standard output and standard error, replaceable in tests.
public protocol OutputStreams: AnyObject, Sendable {
    func out(_ text: String)
    func err(_ text: String)
    /// True when standard error is a terminal, so progress lines may redraw in place.
    var errIsTerminal: Bool { get }
}

extension OutputStreams {
    /// Writes `line` and a newline to standard output.
    public func print(_ line: String) { out(line + "\n") }
    /// Writes `line` and a newline to standard error.
    public func printError(_ line: String) { err(line + "\n") }
}

/// The process's own standard output and error.
public final class StandardStreams: OutputStreams {
    public init() {}

    public func out(_ text: String) { write(1, text) }
    public func err(_ text: String) { write(2, text) }
    public var errIsTerminal: Bool { Posix.isTerminal(2) }

    private func write(_ fd: Int32, _ text: String) {
        // A closed pipe: nothing useful left to do with the text.
        try? Posix.writeAll(fd, Array(text.utf8), path: fd == 1 ? "standard output" : "standard error")
    }
}

/// Output captured in memory, for tests.
public final class CapturedStreams: OutputStreams {
    private let text = Mutex<(out: String, err: String)>(("", ""))

    public init() {}

    public func out(_ s: String) { text.withLock { $0.out += s } }
    public func err(_ s: String) { text.withLock { $0.err += s } }
    public var errIsTerminal: Bool { false }

    public var standardOutput: String { text.withLock { $0.out } }
    public var standardError: String { text.withLock { $0.err } }
}

/// A command of a command-line tool, in argument-parser's shape without the package.
public protocol Command {
    /// The word that selects it, e.g. `path`.
    static var name: String { get }
    /// One line: what it does.
    static var abstract: String { get }
    /// Usage, options and at least one example, printed by `--help`.
    static var help: String { get }
    /// Parses arguments; a `UsageError` is printed with a hint to `--help` and exits 2.
    init(arguments: inout Arguments) throws(UsageError)
    /// Does the work.
    func run(io: any OutputStreams) -> ExitCode
}

/// A command-line tool: a name and its subcommands.
public struct CommandGroup {
    public var name: String
    public var abstract: String
    public var commands: [any Command.Type]

    public init(name: String, abstract: String, commands: [any Command.Type]) {
        self.name = name
        self.abstract = abstract
        self.commands = commands
    }

    /// The top-level help text.
    public var help: String {
        var s = "\(name): \(abstract)\n\nUSAGE: \(name) <command> [options]\n\nCOMMANDS:\n"
        let width = (commands.map { $0.name.count }.max() ?? 0) + 2
        for c in commands {
            s += "  " + c.name.padding(toLength: width) + c.abstract + "\n"
        }
        s += "\nRun '\(name) <command> --help' for a command's options and an example;\n"
        s += "'\(name) --version' prints the version.\n"
        return s
    }

    /// Runs the command named by the first argument.
    public func main(_ argv: [String], io: any OutputStreams = StandardStreams()) -> ExitCode {
        guard let first = argv.first else {
            io.err(help)
            return .usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", argv.count > 1, let c = commands.first(where: { $0.name == argv[1] }) {
                io.out(c.help)
            } else {
                io.out(help)
            }
            return .success
        }
        if first == "--version" {
            io.print("\(name) \(toolVersion)")
            return .success
        }
        guard let type = commands.first(where: { $0.name == first }) else {
            io.printError("\(name): unknown command '\(first)'. Run '\(name) --help' for the list of commands.")
            return .usage
        }
        let given = Arguments(Array(argv.dropFirst()))
        var args = given
        if args.containsHelpFlag {
            io.out(type.help)
            return .success
        }
        do {
            let command = try type.init(arguments: &args)
            return command.run(io: io)
        } catch {
            // An unknown option is the likelier cause of any parse error (a misspelt `--too` makes
            // `--to` missing), so it is named first.
            let message = given.firstUnknownOption(known: Self.optionNames(in: type.help)).map { "unknown option '\($0)'" }
            io.printError("\(name) \(type.name): \(message ?? error.message)")
            io.printError("Run '\(name) \(type.name) --help' for usage.")
            return .usage
        }
    }
}

extension CommandGroup {
    /// The option names (without dashes) that a command's help text mentions: its declared options.
    static func optionNames(in help: String) -> Set<String> {
        let words = help.split { !($0.isLetter || $0.isNumber || $0 == "-") }
        return Set(words.filter { $0.hasPrefix("--") && $0.count > 2 }.map { String($0.dropFirst(2)) })
    }
}

extension String {
    func padding(toLength n: Int) -> String {
        count >= n ? self + " " : self + String(repeating: " ", count: n - count)
    }
}
