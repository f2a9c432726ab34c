import AgentCommands
import Collector
import CommandSupport
import Foundation
import Testing

/// The declarations of options (CommandSupport's `Option`, `OptionGroup`, `Usage`): the help
/// generated from them, the parsing through them, and every command of both tools held to them.
@Suite struct OptionDeclarationTests {
    static let db = Option.single("db", "FILE", help: "the database", default: "./autotrack.sqlite")
    static let step = Option.repeatable(
        "step", "STEP", help: "a step: TYPE:NAME, an event type and name, or rule:ID, a published rule's events; give two or more, in order",
        required: true)
    static let snapshotFrame = Option.single("max-snapshot-frame-bytes", "BYTES", help: "largest SNAPSHOT payload")
    static let debug = Option.flag("debug", help: "one line per interaction")
    static let app = Option.single("app", "KEY", help: "only this app key's events", required: true, missing: "give --app KEY")
    static let groups = [OptionGroup([db, step, snapshotFrame, debug]), OptionGroup("FILTER OPTIONS", [app])]

    /// The column each option's help starts at, for lines that hold both an option and its help.
    static func helpColumns(_ sections: [String]) -> Set<Int> {
        var columns = Set<Int>()
        for line in sections.joined().split(separator: "\n") where line.hasPrefix("  -") {
            let afterName = line.dropFirst(2).firstRange(of: "  ").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            guard let afterName else { continue }
            let text = line[line.index(line.startIndex, offsetBy: afterName)...]
            columns.insert(afterName + text.prefix { $0 == " " }.count)
        }
        return columns
    }

    @Test func optionsOfEveryGroupShareOneColumnAndWrapWithinTheWidth() {
        let sections = HelpText.optionSections(Self.groups)
        #expect(sections.count == 2)
        #expect(sections[0].hasPrefix("OPTIONS:\n"))
        #expect(sections[1].hasPrefix("FILTER OPTIONS:\n  --app KEY"))
        // One column for the command's options, the group's and -h, --help: the widest inline
        // spelling (`--step STEP`... `--db FILE`, not the over-long one) sets it.
        #expect(Self.helpColumns(sections) == [2 + "--step STEP".count + 2])
        let column = 2 + "--step STEP".count + 2
        let lines = sections.joined().split(separator: "\n", omittingEmptySubsequences: false)
        for line in lines { #expect(line.count <= HelpText.width, "\(line)") }
        // A continuation line starts at the column, under the help, never under the name.
        let stepAt = lines.firstIndex { $0.hasPrefix("  --step STEP") }!
        #expect(lines[stepAt + 1].prefix(column).allSatisfy { $0 == " " } && lines[stepAt + 1].dropFirst(column).first != " ")
        // Too long to share a line: the name alone, its help below at the column.
        let long = lines.firstIndex { $0 == "  --max-snapshot-frame-bytes BYTES" }
        #expect(long != nil)
        if let long { #expect(lines[long + 1] == String(repeating: " ", count: column) + "largest SNAPSHOT payload") }
        #expect(sections[0].contains("  -h, --help"))
    }

    @Test func markersSayRequiredRepeatableAndTheDefault() {
        let text = HelpText.optionSections(Self.groups).joined()
        #expect(text.contains("the database (default ./autotrack.sqlite)"))
        #expect(text.contains("in order (required, repeatable)"))
        #expect(text.contains("only this app key's events (required)"))
        #expect(text.contains("one line per interaction\n"))
        let token = Option.single("token", "T", help: "the token", environment: "AUTOTRACK_X")
        #expect(token.markers == "(also $AUTOTRACK_X)")
    }

    @Test func usageBracketsWhatIsOptionalAndWrapsUnderTheFirstOption() {
        #expect(HelpText.usageItem(Self.db) == "[--db FILE]")
        #expect(HelpText.usageItem(Self.step) == "--step STEP ...")
        #expect(HelpText.usageItem(Self.debug) == "[--debug]")
        #expect(HelpText.usageItem(Self.app) == "--app KEY")
        let many = (1...12).map { Option.single("option-\($0)", "VALUE", help: "") }
        let lines = HelpText.usageLines(
            tool: "tool", command: "cmd", forms: [Usage(options: many, arguments: "[FILE | -]"), Usage("list", options: [Self.db])])
        #expect(lines[0].hasPrefix("USAGE: tool cmd [--option-1 VALUE]"))
        #expect(lines.count > 2)
        let indent = "USAGE: tool cmd ".count
        for line in lines.dropFirst().dropLast() {
            #expect(line.count <= HelpText.width)
            #expect(line.prefix(indent).allSatisfy { $0 == " " } && (line.dropFirst(indent).hasPrefix("[--option-") || line.dropFirst(indent).hasPrefix("[FILE")), "\(line)")
        }
        #expect(lines.dropLast().last!.hasSuffix("[FILE | -]"))
        #expect(lines.last == "       tool cmd list [--db FILE]")
    }

    @Test func wrappingKeepsWordsAndLineBreaks() {
        #expect(HelpText.wrap("aa bb cc dd", width: 5) == ["aa bb", "cc dd"])
        #expect(HelpText.wrap("full: one;\nnormal: two", width: 40) == ["full: one;", "normal: two"])
        #expect(HelpText.wrap("averyveryverylongword x", width: 5) == ["averyveryverylongword", "x"])
    }

    @Test func parsingReadsThroughTheDeclarations() throws {
        var args = Arguments(["--step", "a", "--step=b", "--debug", "--app", "--looks-like-an-option", "file"], declared: Self.groups.flatMap(\.options))
        try args.refuseUndeclaredOptions()
        #expect(try args.values(Self.step) == ["a", "b"])
        let debug = args.isSet(Self.debug)
        #expect(debug)
        #expect(try args.value(Self.db) == "./autotrack.sqlite")
        #expect(!args.contains(Self.db))
        #expect(try args.required(Self.app) == "--looks-like-an-option")
        #expect(try args.positionals() == ["file"])

        var missing = Arguments([], declared: Self.groups.flatMap(\.options))
        #expect(throws: UsageError("give --app KEY")) { _ = try missing.required(Self.app) }
        #expect(throws: UsageError("missing required option --step")) { _ = try missing.values(Self.step) }

        let misspelt = Arguments(["--dbb", "x"], declared: Self.groups.flatMap(\.options))
        #expect(throws: UsageError("unknown option '--dbb'; did you mean --db?")) { try misspelt.refuseUndeclaredOptions() }
        let far = Arguments(["--quantum=1"], declared: Self.groups.flatMap(\.options))
        #expect(throws: UsageError("unknown option '--quantum'")) { try far.refuseUndeclaredOptions() }
        var twice = Arguments(["--db", "a", "--db", "b"])
        #expect(throws: UsageError("option --db is given 2 times; give it once")) { _ = try twice.value(Self.db) }
    }

    static var tools: [CommandGroup] { [AgentCLI.group, CollectorCLI.group] }

    /// The option names a help text lists, from its OPTIONS section to its EXAMPLES, in order.
    static func listedOptions(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "OPTIONS:") else { return [] }
        let end = lines.firstIndex(of: "EXAMPLES:") ?? lines.endIndex
        return lines[start..<end].compactMap { line -> String? in
            guard line.hasPrefix("  --") || line.hasPrefix("  -h, --") else { return nil }
            let spelled = line.dropFirst(line.hasPrefix("  -h, ") ? 6 : 2)
            return String(spelled.dropFirst(2).prefix { $0 != " " })
        }
    }

    @Test func everyCommandsHelpListsExactlyTheOptionsItsParserAccepts() throws {
        var checked = 0
        for tool in Self.tools {
            for command in tool.commands {
                let help = tool.help(of: command)
                let declared = command.options.map(\.name)
                #expect(Set(declared).count == declared.count, "\(command.name) declares an option twice")
                let listed = Self.listedOptions(help)
                #expect(listed.sorted() == (declared + ["help"]).sorted(), "\(tool.name) \(command.name) lists \(listed)")
                // The usage names every option, in one form or another.
                let usage = help.components(separatedBy: "\n\n")[0]
                for name in declared { #expect(usage.contains("--\(name)"), "\(command.name)'s usage leaves out --\(name)") }
                // Every option's help, the shared groups' too, starts in one column (funnel's filters once did not).
                let optionsPart = help.components(separatedBy: "\nOPTIONS:\n").last!.components(separatedBy: "\nEXAMPLES:\n")[0]
                #expect(Self.helpColumns([optionsPart]).count == 1, "\(command.name): \(Self.helpColumns([optionsPart]))")
                for line in help.split(separator: "\n") where line.hasPrefix("  -") || line.hasPrefix("USAGE") {
                    #expect(line.count <= HelpText.width, "\(command.name): \(line)")
                }
                // The parser accepts each declared option, reads it (none is left over as unknown), and refuses any other.
                for option in command.options {
                    var args = Arguments(option.kind == .flag ? ["--\(option.name)"] : ["--\(option.name)", "x"], declared: command.options)
                    try args.refuseUndeclaredOptions()
                    do { _ = try command.init(arguments: &args) } catch {
                        #expect(!error.message.contains("unknown option '--\(option.name)'"), "\(command.name) does not read --\(option.name)")
                    }
                }
                let io = CapturedStreams()
                #expect(tool.main([command.name, "--no-such-option"], io: io) == .usage)
                #expect(io.standardError.hasPrefix("\(tool.name) \(command.name): unknown option '--no-such-option'"), "\(io.standardError)")
                #expect(io.standardError.contains("Run '\(tool.name) \(command.name) --help' for usage."))
                #expect(io.standardOutput.isEmpty)
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    /// The filter options and the collector options are declared once and listed alike by every command that takes them.
    @Test func sharedGroupsReadTheSameInEveryCommand() {
        func section(_ help: String, _ title: String) -> String? {
            help.components(separatedBy: "\n\n").first { $0.hasPrefix(title + ":\n") }
        }
        let filters = [FunnelCommand.self, RetentionCommand.self, ExportCommand.self, TailCommand.self, ReportCommand.self]
            .compactMap { (c: any Command.Type) in section(CollectorCLI.group.help(of: c), "FILTER OPTIONS") }
        #expect(filters.count == 5)
        // funnel and retention mark --app required; otherwise the same lines in the same column.
        let words = filters.map { $0.replacingOccurrences(of: " (required)", with: "").split(whereSeparator: \.isWhitespace) }
        #expect(Set(words).count == 1, "\(filters)")
        let collectors = [SendCommand.self, ReplayCommand.self, DemoCommand.self, RunCommand.self]
            .compactMap { (c: any Command.Type) in section(AgentCLI.group.help(of: c), "COLLECTOR OPTIONS") }
        #expect(collectors.count == 4)
        for c in collectors { #expect(c.contains("  --tls-ca FILE") && c.contains("  --tls ")) }
    }
}
