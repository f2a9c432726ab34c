/// A command-line argument that cannot be used as given.
public struct UsageError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The arguments of one command, consumed as options and positionals are read.
///
/// Options are `--name value` or `--name=value`; `--` ends options; a lone `-` is a positional
/// (standard input).
public struct Arguments: Sendable {
    private var items: [String]

    public init(_ items: [String]) { self.items = items }

    /// True when `--help` or `-h` appears before `--`.
    public var containsHelpFlag: Bool {
        for a in items {
            if a == "--" { return false }
            if a == "--help" || a == "-h" { return true }
        }
        return false
    }

    /// Removes and returns every value of `--name`.
    public mutating func options(_ name: String) throws(UsageError) -> [String] {
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
    public mutating func option(_ name: String) throws(UsageError) -> String? {
        let all = try options(name)
        if all.count > 1 { throw UsageError("option --\(name) is given \(all.count) times; give it once") }
        return all.first
    }

    /// Like `option`, but required.
    public mutating func requiredOption(_ name: String) throws(UsageError) -> String {
        guard let v = try option(name) else { throw UsageError("missing required option --\(name)") }
        return v
    }

    /// Removes `--name` and tells whether it was there.
    public mutating func flag(_ name: String) -> Bool {
        var found = false
        var i = 0
        while i < items.count {
            if items[i] == "--" { break }
            if items[i] == "--\(name)" {
                items.remove(at: i)
                found = true
                continue
            }
            i += 1
        }
        return found
    }

    /// An integer option within `range`.
    public mutating func intOption(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = try option(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("option --\(name) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
    }

    /// A number option (may have a fraction) within `range`.
    public mutating func doubleOption(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = try option(name) else { return nil }
        guard let v = Double(text), range.contains(v) else {
            throw UsageError("option --\(name) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return v
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

    /// The first `--option` before `--` whose name is not among `known` (names without dashes),
    /// so an unknown option is reported before any error it causes (`--too` before a missing `--to`).
    public func firstUnknownOption(known: Set<String>) -> String? {
        for a in items {
            if a == "--" { return nil }
            guard a.hasPrefix("--") else { continue }
            let name = a.dropFirst(2).split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if !known.contains(name) { return a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a }
        }
        return nil
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
