/// Text as PostgreSQL keeps it. PostgreSQL text cannot hold U+0000, which JSON strings (and so
/// event ids and names) may carry, so text is stored through an injective escape on the
/// noncharacter U+FFFF: U+0000 becomes U+FFFF `0`, U+FFFF becomes U+FFFF U+FFFF, nothing else
/// changes. Distinct strings stay distinct (ids are still compared byte for byte, so the unique
/// key means what it means in SQLite), and text without either character, which is all text in
/// practice, is stored and queried in `psql` exactly as sent.
enum PostgresText {
    private static let escape: Unicode.Scalar = "\u{FFFF}"

    /// The stored form of `s`.
    static func encode(_ s: String) -> String {
        guard needsWork(s, nul: true) else { return s }
        var out = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            switch c {
            case "\u{0}": out.append(escape); out.append("0")
            case escape: out.append(escape); out.append(escape)
            default: out.append(c)
            }
        }
        return String(out)
    }

    static func encode(_ s: String?) -> String? { s.map(encode) }

    /// The text `encode` was given.
    static func decode(_ s: String) -> String {
        guard needsWork(s, nul: false) else { return s }
        var out = String.UnicodeScalarView()
        var pendingEscape = false
        for c in s.unicodeScalars {
            if pendingEscape {
                out.append(c == "0" ? "\u{0}" : c)
                pendingEscape = false
            } else if c == escape {
                pendingEscape = true
            } else {
                out.append(c)
            }
        }
        if pendingEscape { out.append(escape) }
        return String(out)
    }

    static func decode(_ s: String?) -> String? { s.map(decode) }

    /// Whether `s` holds U+FFFF (UTF-8 EF BF BF) or, when `nul`, U+0000.
    private static func needsWork(_ s: String, nul: Bool) -> Bool {
        var sawEF = 0
        for b in s.utf8 {
            if nul, b == 0 { return true }
            if b == 0xEF { sawEF = 1 } else if b == 0xBF, sawEF > 0 { sawEF += 1; if sawEF == 3 { return true } } else { sawEF = 0 }
        }
        return false
    }
}
