/// A canonical form or pattern that could not be read, with the offending character's position.
public struct ViewPathParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that was being parsed.
    public var text: String
    /// Offset of the offending character in `text`, in characters from 0 (`text.count` for "at the end").
    public var offset: Int
    /// What is wrong, such as `'x' is not a digit`.
    public var reason: String

    public init(text: String, offset: Int, reason: String) {
        self.text = text
        self.offset = offset
        self.reason = reason
    }

    /// One line: the reason, the 1-based character position and the text. Other errors embed it.
    public var description: String {
        "\(reason) at character \(offset + 1) of \"\(text)\""
    }

    /// Two lines for a terminal: the text, and a caret under the bad character.
    public var caretDiagram: String {
        "  " + text + "\n  " + String(repeating: " ", count: offset) + "^"
    }
}

/// Reads the shape shared by canonical forms and patterns: `name-name&index-index`.
///
/// Works on characters so that offsets count what a person sees. Names may hold any character
/// except `-`, `&`, `*` and control characters, and may not start or end with whitespace; an
/// index is read by the caller's closure from its characters.
struct CanonicalScanner {
    let text: String
    let chars: [Character]

    init(_ text: String) {
        self.text = text
        self.chars = Array(text)
    }

    func error(_ offset: Int, _ reason: String) -> ViewPathParseError {
        ViewPathParseError(text: text, offset: offset, reason: reason)
    }

    /// Splits the text and reads each index with `readIndex(characters, offsetOfFirst)`.
    func parse<Index>(
        readIndex: (ArraySlice<Character>, Int) throws(ViewPathParseError) -> Index
    ) throws(ViewPathParseError) -> (names: [String], indexes: [Index]) {
        guard !chars.isEmpty else { throw error(0, "an empty path (expected names, '&', then indexes)") }
        guard let amp = chars.firstIndex(of: "&") else {
            throw error(chars.count, "missing '&' between names and indexes")
        }
        var names: [String] = []
        var start = 0
        for i in 0...amp where i == amp || chars[i] == "-" {
            names.append(try name(start..<i))
            start = i + 1
        }
        var indexes: [Index] = []
        start = amp + 1
        for i in (amp + 1)...chars.count where i == chars.count || chars[i] == "-" {
            guard i > start else {
                throw error(start, i == chars.count ? "a missing index at the end" : "an empty index")
            }
            if indexes.count == names.count {
                throw error(start, "more indexes than names (\(names.count) names)")
            }
            indexes.append(try readIndex(chars[start..<i], start))
            start = i + 1
        }
        if indexes.count < names.count {
            throw error(chars.count, "\(names.count) names but only \(indexes.count) indexes")
        }
        return (names, indexes)
    }

    private func name(_ range: Range<Int>) throws(ViewPathParseError) -> String {
        guard !range.isEmpty else { throw error(range.lowerBound, "an empty name") }
        for i in range {
            let c = chars[i]
            if c == "*" { throw error(i, "'*' in a name (wildcards belong in indexes; names match exactly)") }
            if c.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw error(i, "a control character in a name")
            }
        }
        if chars[range.lowerBound].isWhitespace { throw error(range.lowerBound, "a name that starts with a space") }
        if chars[range.upperBound - 1].isWhitespace { throw error(range.upperBound - 1, "a name that ends with a space") }
        return String(chars[range])
    }

    /// A whole number ≥ 0 with no sign; leading zeros are refused so that each path has one spelling.
    func number(_ s: ArraySlice<Character>, what: String) throws(ViewPathParseError) -> Int {
        guard let first = s.indices.first else { throw error(s.startIndex, "an empty \(what)") }
        var value = 0
        for i in s.indices {
            let c = s[i]
            guard let digit = c.asciiDigit else {
                if c == "*" { throw error(i, "a wildcard '*' where the \(what) must be a number") }
                if c == "&" { throw error(i, "a second '&' (a path has exactly one)") }
                throw error(i, "'\(c)' is not a digit in the \(what)")
            }
            if i == first, digit == 0, s.count > 1 { throw error(i, "a leading zero in the \(what) (write each number one way)") }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (v, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 { throw error(first, "the \(what) is too large") }
            value = v
        }
        return value
    }

    /// An index of a canonical form: `n` or `s:r`.
    func pathIndex(_ s: ArraySlice<Character>) throws(ViewPathParseError) -> PathIndex {
        if let colon = s.firstIndex(of: ":") {
            let section = try number(s[..<colon], what: "section")
            let row = try number(s[(colon + 1)...], what: "row")
            return .cell(CellIndexPath(section: section, row: row))
        }
        if let star = s.firstIndex(of: "*") {
            throw error(star, "a wildcard in a path (only patterns may hold '*')")
        }
        return .position(try number(s, what: "index"))
    }
}

extension Character {
    fileprivate var asciiDigit: Int? {
        guard let a = asciiValue, a >= 0x30, a <= 0x39 else { return nil }
        return Int(a - 0x30)
    }
}

extension ViewPath {
    /// Reads a canonical form back into a path; errors point at the bad character.
    public init(canonical text: String) throws(ViewPathParseError) {
        let scanner = CanonicalScanner(text)
        let parts = try scanner.parse { (s, _) throws(ViewPathParseError) in try scanner.pathIndex(s) }
        self.init(elements: zip(parts.names, parts.indexes).map { Element(name: $0, index: $1) })
    }
}

extension PathIndex {
    /// Reads `n` or `s:r`.
    public init(parsing text: String) throws(ViewPathParseError) {
        let scanner = CanonicalScanner(text)
        guard !scanner.chars.isEmpty else { throw scanner.error(0, "an empty index") }
        self = try scanner.pathIndex(scanner.chars[...])
    }
}
