/// One option of a command, declared once: the parser reads its values through this declaration,
/// and the usage line and the OPTIONS section of `--help` are generated from it, so the name,
/// the value's placeholder, the help and the default cannot disagree between them.
public struct Option: Sendable, Hashable {
    /// How many values the option takes.
    public enum Kind: Sendable, Hashable {
        /// No value: present or not (`--debug`).
        case flag
        /// One value, given at most once (`--db FILE`).
        case single
        /// One value each time, given any number of times (`--config FILE ...`).
        case repeatable
    }

    /// The name without dashes: `db` for `--db`.
    public var name: String
    /// The value's placeholder in usage and help (`FILE`, `K`); empty for a flag.
    public var value: String
    /// What it means, as one paragraph (wrapped by the help); a newline starts a new line.
    public var help: String
    public var kind: Kind
    /// Shown without brackets in the usage line and marked `required` in the help; the command
    /// reads it with `Arguments.required(_:)`, which says `missing` when it is absent.
    public var isRequired: Bool
    /// The value used when the option is not given, shown as `default X` in the help.
    public var defaultValue: String?
    /// What a missing required option says; nil: `missing required option --NAME`.
    public var missing: String?
    /// The environment variable read when the option is not given (before the default).
    public var environment: String?

    /// The usage error of this required option's absence.
    public var missingError: UsageError { UsageError(missing ?? "missing required option --\(name)") }

    /// A flag: `--name`, present or not.
    public static func flag(_ name: String, help: String) -> Option {
        Option(name: name, value: "", help: help, kind: .flag, isRequired: false, defaultValue: nil, missing: nil, environment: nil)
    }

    /// An option with one value, given at most once.
    public static func single(
        _ name: String, _ value: String, help: String, default defaultValue: String? = nil, required: Bool = false,
        missing: String? = nil, environment: String? = nil
    ) -> Option {
        Option(
            name: name, value: value, help: help, kind: .single, isRequired: required, defaultValue: defaultValue, missing: missing,
            environment: environment)
    }

    /// An option given once per value, any number of times.
    public static func repeatable(_ name: String, _ value: String, help: String, required: Bool = false, missing: String? = nil) -> Option {
        Option(
            name: name, value: value, help: help, kind: .repeatable, isRequired: required, defaultValue: nil, missing: missing, environment: nil)
    }

    /// `--name` or `--name VALUE`, as usage and help spell it.
    public var spelled: String { value.isEmpty ? "--\(name)" : "--\(name) \(value)" }

    /// This option as one command describes it: the same name and parsing, its own words.
    public func described(_ help: String) -> Option {
        var o = self
        o.help = help
        return o
    }

    /// This option, required (a group's option that one command cannot do without).
    public func required(missing: String? = nil) -> Option {
        var o = self
        o.isRequired = true
        o.missing = missing ?? self.missing
        return o
    }

    /// What the help says after the text: `(required, repeatable, also $VAR, default 60)`, or nothing.
    public var markers: String {
        var words: [String] = []
        if isRequired { words.append("required") }
        if kind == .repeatable { words.append("repeatable") }
        if let environment { words.append("also $\(environment)") }
        if let defaultValue { words.append("default \(defaultValue)") }
        return words.isEmpty ? "" : "(" + words.joined(separator: ", ") + ")"
    }
}

/// Options declared once and taken by several commands (the event filters, how to reach a
/// collector), as argument-parser's `@OptionGroup`: a titled group gets a section of its own in
/// `--help`, aligned with the command's own options; an untitled one joins OPTIONS.
public struct OptionGroup: Sendable, Hashable {
    /// The section's heading (`FILTER OPTIONS`); nil: the command's OPTIONS.
    public var title: String?
    public var options: [Option]

    /// Options of the command's own OPTIONS section.
    public init(_ options: [Option]) {
        title = nil
        self.options = options
    }

    /// Options with a section of their own, headed `title`.
    public init(_ title: String, _ options: [Option]) {
        self.title = title
        self.options = options
    }
}

/// One form of a command's usage line: words after the command's name (`publish FILE...`), the
/// options of this form, and what follows them (`[FILE | -]`, `-- PROGRAM [ARGS ...]`).
public struct Usage: Sendable, Hashable {
    public var words: String
    public var options: [Option]
    public var arguments: String

    public init(_ words: String = "", options: [Option], arguments: String = "") {
        self.words = words
        self.options = options
        self.arguments = arguments
    }
}
