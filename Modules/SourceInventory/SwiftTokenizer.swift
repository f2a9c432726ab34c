/// A light Swift tokenizer for the inventory: identifiers, attributes and punctuation, with comments
/// and string literals (plain, multi-line, raw, with interpolations) skipped. Not a Swift parser.
struct SwiftTokenizer {
    /// One token.
    enum Token: Hashable {
        /// An identifier or keyword; backticks removed.
        case word(String)
        /// `@name`.
        case attribute(String)
        /// One punctuation character, or `->`.
        case punct(String)
        /// A string literal (its content is not kept).
        case string
        case number
    }

    private let s: [UInt8]
    private var i = 0

    init(_ text: String) { s = Array(text.utf8) }

    static func tokenize(_ text: String) -> [Token] {
        var t = SwiftTokenizer(text)
        var out: [Token] = []
        while let tok = t.next() { out.append(tok) }
        return out
    }

    private func at(_ k: Int) -> UInt8 { k < s.count ? s[k] : 0 }

    private static func isIdentStart(_ b: UInt8) -> Bool {
        (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F || b >= 0x80
    }

    private static func isIdent(_ b: UInt8) -> Bool { isIdentStart(b) || (0x30...0x39).contains(b) }

    mutating func next() -> Token? {
        while i < s.count {
            let b = s[i]
            if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                i += 1
                continue
            }
            if b == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "/") {
                while i < s.count, s[i] != 0x0A { i += 1 }
                continue
            }
            if b == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "*") {
                skipBlockComment()
                continue
            }
            if b == UInt8(ascii: "\"") || (b == UInt8(ascii: "#") && (at(i + 1) == UInt8(ascii: "\"") || at(i + 1) == UInt8(ascii: "#"))) {
                if skipString() { return .string }
            }
            if b == UInt8(ascii: "@") {
                i += 1
                let start = i
                while i < s.count, Self.isIdent(s[i]) { i += 1 }
                return .attribute(String(decoding: s[start..<i], as: UTF8.self))
            }
            if b == UInt8(ascii: "`") {
                i += 1
                let start = i
                while i < s.count, s[i] != UInt8(ascii: "`"), s[i] != 0x0A { i += 1 }
                let w = String(decoding: s[start..<min(i, s.count)], as: UTF8.self)
                if i < s.count, s[i] == UInt8(ascii: "`") { i += 1 }
                return .word(w)
            }
            if Self.isIdentStart(b) {
                let start = i
                while i < s.count, Self.isIdent(s[i]) { i += 1 }
                return .word(String(decoding: s[start..<i], as: UTF8.self))
            }
            if (0x30...0x39).contains(b) {
                while i < s.count, Self.isIdent(s[i]) || s[i] == UInt8(ascii: ".") && (0x30...0x39).contains(at(i + 1)) { i += 1 }
                return .number
            }
            if b == UInt8(ascii: "-"), at(i + 1) == UInt8(ascii: ">") {
                i += 2
                return .punct("->")
            }
            i += 1
            return .punct(String(UnicodeScalar(b)))
        }
        return nil
    }

    /// Skips `/* ... */`, which nests in Swift.
    private mutating func skipBlockComment() {
        var depth = 0
        while i < s.count {
            if s[i] == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "*") {
                depth += 1
                i += 2
            } else if s[i] == UInt8(ascii: "*"), at(i + 1) == UInt8(ascii: "/") {
                depth -= 1
                i += 2
                if depth == 0 { return }
            } else {
                i += 1
            }
        }
    }

    /// Skips a string literal starting at `i` (`"`, `"""`, `#"`, `##"""` ...); false when `#` starts no string.
    private mutating func skipString() -> Bool {
        var k = i
        var hashes = 0
        while at(k) == UInt8(ascii: "#") {
            hashes += 1
            k += 1
        }
        guard at(k) == UInt8(ascii: "\"") else { return false }
        let multi = at(k + 1) == UInt8(ascii: "\"") && at(k + 2) == UInt8(ascii: "\"")
        i = k + (multi ? 3 : 1)
        while i < s.count {
            let b = s[i]
            if b == UInt8(ascii: "\\") {
                // An escape needs as many #s as the string has: `\#(` in `#"..."#`.
                var h = 0
                while at(i + 1 + h) == UInt8(ascii: "#") { h += 1 }
                if h == hashes {
                    i += 1 + h
                    if at(i) == UInt8(ascii: "(") {
                        skipInterpolation()
                    } else {
                        i += 1
                    }
                    continue
                }
                i += 1
                continue
            }
            if !multi, b == 0x0A { return true }  // An unterminated string ends at the line.
            if b == UInt8(ascii: "\"") {
                if multi {
                    guard at(i + 1) == UInt8(ascii: "\""), at(i + 2) == UInt8(ascii: "\"") else {
                        i += 1
                        continue
                    }
                    var h = 0
                    while h < hashes, at(i + 3 + h) == UInt8(ascii: "#") { h += 1 }
                    if h == hashes {
                        i += 3 + hashes
                        return true
                    }
                    i += 1
                    continue
                }
                var h = 0
                while h < hashes, at(i + 1 + h) == UInt8(ascii: "#") { h += 1 }
                if h == hashes {
                    i += 1 + hashes
                    return true
                }
            }
            i += 1
        }
        return true
    }

    /// Skips `( ... )` of an interpolation, which may hold strings and parentheses of its own.
    private mutating func skipInterpolation() {
        var depth = 0
        while i < s.count {
            let b = s[i]
            if b == UInt8(ascii: "(") {
                depth += 1
            } else if b == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 {
                    i += 1
                    return
                }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "#") {
                let before = i
                if skipString() { continue }
                i = before
            } else if b == UInt8(ascii: "/"), at(i + 1) == UInt8(ascii: "*") {
                skipBlockComment()
                continue
            }
            i += 1
        }
    }
}
