/// A canonical form or pattern that could not be read, with the offending character's position.
public struct ViewPathParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text that was being parsed.
    public var text: String
    /// Offset of the offending character in `text`, in characters from 0.
    public var offset: Int
    public var reason: String

    public init(text: String, offset: Int, reason: String) {
        self.text = text
        self.offset = offset
        self.reason = reason
    }

    public var description: String {
        "\(reason) at character \(offset + 1) of \"\(text)\""
    }
}

/// Splits a canonical form or pattern into names and index texts, checking the shape.
enum CanonicalSplitter {
    struct Parts {
        var names: [Substring]
        /// Each index text with its character offset in the whole text.
        var indexes: [(text: Substring, offset: Int)]
    }

    static func split(_ text: String) throws(ViewPathParseError) -> Parts {
        let chars = Array(text)
        guard let amp = chars.firstIndex(of: "&") else {
            throw ViewPathParseError(text: text, offset: chars.count, reason: "missing '&' between names and indexes")
        }
        if let second = chars[(amp + 1)...].firstIndex(of: "&") {
            throw ViewPathParseError(text: text, offset: second, reason: "a second '&'")
        }
        let ampIndex = text.index(text.startIndex, offsetBy: amp)
        let namePart = text[..<ampIndex]
        let indexPart = text[text.index(after: ampIndex)...]
        var names: [Substring] = []
        var offset = 0
        for n in namePart.split(separator: "-", omittingEmptySubsequences: false) {
            if n.isEmpty {
                throw ViewPathParseError(text: text, offset: offset, reason: "an empty name")
            }
            if let bad = n.firstIndex(where: { $0 == "*" || $0 == " " }) {
                let at = offset + n.distance(from: n.startIndex, to: bad)
                throw ViewPathParseError(text: text, offset: at, reason: "'\(n[bad])' is not allowed in a name")
            }
            names.append(n)
            offset += n.count + 1
        }
        var indexes: [(Substring, Int)] = []
        offset = amp + 1
        for i in indexPart.split(separator: "-", omittingEmptySubsequences: false) {
            if i.isEmpty {
                throw ViewPathParseError(text: text, offset: offset, reason: "an empty index")
            }
            indexes.append((i, offset))
            offset += i.count + 1
        }
        if names.count != indexes.count {
            throw ViewPathParseError(
                text: text, offset: amp,
                reason: "\(names.count) names but \(indexes.count) indexes")
        }
        return Parts(names: names, indexes: indexes)
    }

    /// A whole number ≥ 0 with no sign; leading zeros are refused so each path has one spelling.
    static func number(_ s: Substring, text: String, offset: Int) throws(ViewPathParseError) -> Int {
        guard !s.isEmpty else { throw ViewPathParseError(text: text, offset: offset, reason: "an empty number") }
        for (k, c) in s.enumerated() where !c.isASCII || !c.isNumber {
            throw ViewPathParseError(text: text, offset: offset + k, reason: "'\(c)' is not a digit")
        }
        if s.count > 1, s.first == "0" {
            throw ViewPathParseError(text: text, offset: offset, reason: "a leading zero")
        }
        guard let v = Int(s) else { throw ViewPathParseError(text: text, offset: offset, reason: "a number too large") }
        return v
    }
}

extension ViewPath {
    /// Reads a canonical form back into a path.
    public init(canonical text: String) throws(ViewPathParseError) {
        let parts = try CanonicalSplitter.split(text)
        var elements: [Element] = []
        elements.reserveCapacity(parts.names.count)
        for (name, idx) in zip(parts.names, parts.indexes) {
            elements.append(Element(name: String(name), index: try PathIndex.parse(idx.text, text: text, offset: idx.offset)))
        }
        self.init(elements: elements)
    }
}

extension PathIndex {
    static func parse(_ s: Substring, text: String, offset: Int) throws(ViewPathParseError) -> PathIndex {
        if let colon = s.firstIndex(of: ":") {
            let sec = s[..<colon]
            let row = s[s.index(after: colon)...]
            let section = try CanonicalSplitter.number(sec, text: text, offset: offset)
            let r = try CanonicalSplitter.number(row, text: text, offset: offset + sec.count + 1)
            return .cell(CellIndexPath(section: section, row: r))
        }
        if s.contains("*") {
            throw ViewPathParseError(text: text, offset: offset, reason: "a wildcard in a path (only patterns may hold '*')")
        }
        return .position(try CanonicalSplitter.number(s, text: text, offset: offset))
    }
}
