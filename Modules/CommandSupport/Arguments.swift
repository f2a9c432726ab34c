import SystemCalls

/// A command-line argument that cannot be used as given.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The arguments of one command, consumed as the command reads its declared options and then
/// its positionals.
///
/// Options are `--name value` or `--name=value`; `--` ends options; a lone `-` is a positional
/// (standard input). A command reads only through its `Option` declarations; given `declared`
/// (as `CommandGroup` does), reading an option not among them is a programming error.
public struct Arguments: Sendable {
    private var items: [String]
    /// The command's declarations by name; nil: any declaration may be read (a test's arguments).
    private let declared: [String: Option]?

    public init(_ items: [String], declared: [Option]? = nil) {
        self.items = items
        self.declared = declared.map { Dictionary($0.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }) }
    }

    /// True when `--help` or `-h` appears before `--`.
    public var containsHelpFlag: Bool {
        for a in items {
            if a == "--" { return false }
            if a == "--help" || a == "-h" { return true }
        }
        return false
    }

    /// Throws for the first `--option` before `--` that is not declared (the value of a declared
    /// option, `--token --x`, is not one), naming it and the declared option it is closest to.
    public func refuseUndeclaredOptions() throws(UsageError) {
        guard let declared else { return }
        var i = 0
        while i < items.count {
            let a = items[i]
            if a == "--" { return }
            i += 1
            guard a.hasPrefix("--") else { continue }
            let name = String(a.dropFirst(2).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            guard let option = declared[name] else {
                let spelled = "--" + name
                let near = declared.keys.filter { Self.distance($0, name) <= 2 }.min { Self.distance($0, name) < Self.distance($1, name) }
                throw UsageError("unknown option '\(spelled)'" + (near.map { "; did you mean --\($0)?" } ?? ""))
            }
            if option.kind != .flag, !a.contains("=") { i += 1 }
        }
    }

    /// Edits (insert, delete, replace) between two names, for "did you mean".
    static func distance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        guard !x.isEmpty else { return y.count }
        var row = Array(0...y.count)
        for i in 1...x.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1..<(y.count + 1) {
                let above = row[j]
                row[j] = min(above + 1, row[j - 1] + 1, diagonal + (x[i - 1] == y[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return row[y.count]
    }

    private func check(_ option: Option, _ kinds: Option.Kind...) {
        precondition(declared == nil || declared?[option.name]?.kind == option.kind, "--\(option.name) is read but not declared by the command")
        precondition(kinds.contains(option.kind), "--\(option.name) is read as \(kinds), declared as \(option.kind)")
    }

    /// Every value given to a repeatable option, in order; none of a required one is its usage error.
    public mutating func values(_ option: Option) throws(UsageError) -> [String] {
        check(option, .repeatable)
        let values = try take(option.name)
        if values.isEmpty, option.isRequired { throw option.missingError }
        return values
    }

    /// The value given to a single option, else its environment variable's, else its declared
    /// default, else nil.
    public mutating func value(_ option: Option) throws(UsageError) -> String? {
        check(option, .single)
        return try takeOne(option.name) ?? option.environment.flatMap(Posix.environmentValue) ?? option.defaultValue
    }

    /// The value given to a single option that declares a default, else the default.
    public mutating func value(defaulted option: Option) throws(UsageError) -> String {
        precondition(option.defaultValue != nil, "--\(option.name) declares no default")
        return try value(option)!
    }

    /// The value of a required option; its absence is a usage error saying the declaration's `missing`.
    public mutating func required(_ option: Option) throws(UsageError) -> String {
        check(option, .single)
        guard let v = try takeOne(option.name) else { throw option.missingError }
        return v
    }

    /// Whether a flag is given.
    public mutating func isSet(_ option: Option) -> Bool {
        check(option, .flag)
        var found = false
        var i = 0
        while i < items.count {
            if items[i] == "--" { break }
            if items[i] == "--\(option.name)" {
                items.remove(at: i)
                found = true
                continue
            }
            i += 1
        }
        return found
    }

    /// A whole number within `range`: the value given, else the declared default, else nil.
    public mutating func int(_ option: Option, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try value(option) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("option --\(option.name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A whole number within `range` of an option that declares a default: the value given, else the default.
    public mutating func int(defaulted option: Option, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        precondition(option.defaultValue.flatMap { Int($0) }.map(range.contains) == true, "--\(option.name) declares no default in range")
        return try int(option, in: range)!
    }

    /// A number (may have a fraction) within `range`: the value given, else the declared default, else nil.
    public mutating func double(_ option: Option, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = try value(option) else { return nil }
        guard let v = Double(text), range.contains(v) else {
            throw UsageError("option --\(option.name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A number within `range` of an option that declares a default: the value given, else the default.
    public mutating func double(defaulted option: Option, in range: ClosedRange<Double>) throws(UsageError) -> Double {
        precondition(option.defaultValue.flatMap { Double($0) }.map(range.contains) == true, "--\(option.name) declares no default in range")
        return try double(option, in: range)!
    }

    /// Whether `option` is given (before `--`), without taking it: for an option whose absence
    /// matters beside its default, such as one that belongs with another.
    public func contains(_ option: Option) -> Bool {
        for a in items {
            if a == "--" { return false }
            if a == "--\(option.name)" || a.hasPrefix("--\(option.name)=") { return true }
        }
        return false
    }

    /// Removes and returns every value of `--name`.
    private mutating func take(_ name: String) throws(UsageError) -> [String] {
        var values: [String] = []
        var i = 0
        while i < items.count {
            let a = items[i]
            if a == "--" { break }
            if a == "--\(name)" {
                guard i + 1 < items.count, items[i + 1] != "--" else {
                    throw UsageError("option --\(name) needs a value")
                }
                values.append(items[i + 1])
                items.removeSubrange(i...(i + 1))
                continue
            }
            if a.hasPrefix("--\(name)=") {
                values.append(String(a.dropFirst(name.count + 3)))
                items.remove(at: i)
                continue
            }
            i += 1
        }
        return values
    }

    /// Removes and returns the value of `--name`, which may be given at most once.
    private mutating func takeOne(_ name: String) throws(UsageError) -> String? {
        let all = try take(name)
        if all.count > 1 { throw UsageError("option --\(name) is given \(all.count) times; give it once") }
        return all.first
    }

    /// Removes and returns what is left; an unknown `--option` among it is an error.
    public mutating func positionals() throws(UsageError) -> [String] {
        var out: [String] = []
        var afterDashes = false
        for a in items {
            if !afterDashes, a == "--" {
                afterDashes = true
                continue
            }
            if !afterDashes, a.hasPrefix("-"), a != "-" {
                throw UsageError("unknown option '\(a)'")
            }
            out.append(a)
        }
        items = []
        return out
    }

    /// Checks that nothing is left over.
    public mutating func finish() throws(UsageError) {
        let rest = try positionals()
        if let first = rest.first { throw UsageError("unexpected argument '\(first)'") }
    }
}

/// Parses `HOST:PORT` (IPv6 hosts in brackets: `[::1]:7070`).
public struct HostPort: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public init(_ text: String) throws(UsageError) {
        var hostPart: Substring
        var portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw UsageError("'\(text)' has '[' without ']'; expected [IPv6]:PORT") }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw UsageError("'\(text)' needs ':PORT' after the bracketed host") }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw UsageError("'\(text)' is not HOST:PORT (e.g. 127.0.0.1:7070)") }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw UsageError("'\(text)' has an empty host; expected HOST:PORT") }
        guard let p = UInt16(portPart) else { throw UsageError("'\(text)' has port '\(portPart)'; expected a number from 0 to 65535") }
        host = String(hostPart)
        port = p
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
