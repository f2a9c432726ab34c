/// A command's `--help`, generated from its declarations (usage forms, option groups) around the
/// prose it writes by hand (discussion, examples): every option of every group in one column,
/// help wrapped to `width`.
public enum HelpText {
    /// The longest line the help writes, but for a word longer than a line.
    public static let width = 100
    /// The longest `--name VALUE` that shares its line with the help; a longer one has a line of its own.
    public static let widestInline = 24

    /// The whole help of `command`, a subcommand of `tool`.
    public static func render(_ command: any Command.Type, tool: String) -> String {
        var s = usageLines(tool: tool, command: command.name, forms: command.usage).joined(separator: "\n") + "\n\n"
        let discussion = command.discussion.trimmingTrailingNewlines
        if !discussion.isEmpty { s += discussion + "\n\n" }
        s += optionSections(command.optionGroups).joined(separator: "\n") + "\n"
        let examples = command.examples.trimmingTrailingNewlines
        if !examples.isEmpty {
            s += "EXAMPLES:\n"
            for line in examples.split(separator: "\n", omittingEmptySubsequences: false) { s += line.isEmpty ? "\n" : "  \(line)\n" }
            s += "\n"
        }
        return s
    }

    /// `USAGE: tool command …`, one form after the other, each with its required options first
    /// (otherwise in declaration order) and wrapped with its continuation lines under its first option.
    public static func usageLines(tool: String, command: String, forms: [Usage]) -> [String] {
        var lines: [String] = []
        for (i, form) in forms.enumerated() {
            let lead = (i == 0 ? "USAGE: " : "       ") + "\(tool) \(command)" + (form.words.isEmpty ? "" : " " + form.words)
            let options = form.options.filter(\.isRequired) + form.options.filter { !$0.isRequired }
            let items = options.map(usageItem) + (form.arguments.isEmpty ? [] : [form.arguments])
            let indent = String(repeating: " ", count: min(lead.count + 1, width / 2))
            var line = lead
            for item in items {
                if line.count + 1 + item.count > width, line != lead, line != indent {
                    lines.append(line)
                    line = indent + item
                } else {
                    line += (line == indent ? "" : " ") + item
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// One option as the usage line shows it: `--db FILE`, `[--app K]`, `--config FILE ...`, `[--debug]`.
    public static func usageItem(_ option: Option) -> String {
        let text = option.spelled + (option.kind == .repeatable ? " ..." : "")
        return option.isRequired ? text : "[\(text)]"
    }

    /// The OPTIONS section (the untitled groups' options and `-h, --help`), then a section per
    /// titled group, all in one column.
    public static func optionSections(_ groups: [OptionGroup]) -> [String] {
        let untitled = groups.filter { $0.title == nil }.flatMap(\.options)
        let titled = groups.filter { $0.title != nil }
        let all = untitled + titled.flatMap(\.options)
        let widest = ([helpEntry] + all).map { spelling($0).count }.filter { $0 <= widestInline }.max() ?? 0
        let column = 2 + widest + 2
        var sections = ["OPTIONS:\n" + (untitled + [helpEntry]).map { entry($0, column: column) }.joined()]
        for group in titled { sections.append("\(group.title!):\n" + group.options.map { entry($0, column: column) }.joined()) }
        return sections
    }

    /// `-h, --help`, which every command takes (the group answers it before the command parses).
    static let helpEntry = Option(name: "help", value: "", help: "show this help", kind: .flag, isRequired: false, defaultValue: nil, missing: nil, environment: nil)

    /// How the OPTIONS section spells an option: `--db FILE`; `-h, --help` for the help.
    static func spelling(_ option: Option) -> String { option == helpEntry ? "-h, --help" : option.spelled }

    /// One option's lines: its spelling, then its help and markers wrapped from `column`.
    public static func entry(_ option: Option, column: Int) -> String {
        let spelled = spelling(option)
        let text = option.markers.isEmpty ? option.help : option.help + " " + option.markers
        let body = wrap(text, width: width - column)
        let pad = String(repeating: " ", count: column)
        var s = "  " + spelled
        if spelled.count + 4 > column {
            s += "\n" + pad
        } else {
            s += String(repeating: " ", count: column - 2 - spelled.count)
        }
        s += body.joined(separator: "\n" + pad) + "\n"
        return s
    }

    /// `text`'s words in lines of at most `width` characters (a longer word alone on its line);
    /// a newline in `text` always starts a line.
    public static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ") {
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }
}

extension String {
    var trimmingTrailingNewlines: String {
        var s = Substring(self)
        while s.last == "\n" { s = s.dropLast() }
        return String(s)
    }
}
