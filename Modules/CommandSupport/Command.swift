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

/// A command of a command-line tool, in argument-parser's shape without the package: its options
/// are declared once (`optionGroups`), the parser reads them through the declarations, and
/// `--help` is generated from them around the prose the command writes (`discussion`, `examples`).
public protocol Command {
    /// The word that selects it, e.g. `path`.
    static var name: String { get }
    /// One line: what it does.
    static var abstract: String { get }
    /// What `--help` says between the usage and the options: what it does, its output, its exit status.
    static var discussion: String { get }
    /// Every option it takes, its own first, then the groups it shares with other commands.
    static var optionGroups: [OptionGroup] { get }
    /// What follows the options in the usage line (`[FILE | -]`); empty when nothing does.
    static var positionals: String { get }
    /// The usage line's forms; by default one, with every option and `positionals`.
    static var usage: [Usage] { get }
    /// Command lines (and indented output under them) that run as printed, for `--help`.
    static var examples: String { get }
    /// Parses arguments; a `UsageError` is printed with a hint to `--help` and exits 2.
    init(arguments: inout Arguments) throws(UsageError)
    /// Does the work.
    func run(io: any OutputStreams) -> ExitCode
}

extension Command {
    public static var positionals: String { "" }
    public static var usage: [Usage] { [Usage(options: options, arguments: positionals)] }

    /// Every declared option, in the order of `optionGroups`.
    public static var options: [Option] { optionGroups.flatMap(\.options) }

    /// The `--help` text, as the tool named `tool` prints it.
    public static func help(tool: String) -> String { HelpText.render(self, tool: tool) }
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
                io.out(c.help(tool: name))
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
        var args = Arguments(Array(argv.dropFirst()), declared: type.options)
        if args.containsHelpFlag {
            io.out(type.help(tool: name))
            return .success
        }
        do {
            // An option the command does not declare is refused before it parses, so it is named
            // rather than an error it causes (a misspelt `--too` makes `--to` missing).
            try args.refuseUndeclaredOptions()
            let command = try type.init(arguments: &args)
            return command.run(io: io)
        } catch {
            io.printError("\(name) \(type.name): \(error.message)")
            io.printError("Run '\(name) \(type.name) --help' for usage.")
            return .usage
        }
    }

    /// The `--help` of `command` as this tool prints it.
    public func help(of command: any Command.Type) -> String { command.help(tool: name) }
}

extension String {
    func padding(toLength n: Int) -> String {
        count >= n ? self + " " : self + String(repeating: " ", count: n - count)
    }
}
