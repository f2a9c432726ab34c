/// Text a client chose (an app key, a version, an agent, a peer, an id, an error quoting its
/// data), made safe to write into one log line: the collector's one escaping function.
///
/// A line feed or carriage return would forge a second log line, an escape sequence would
/// recolour or rewrite the operator's terminal, and a bidirectional override would reorder
/// what is shown; each is written as `\n`, `\r`, `\t` or `\u{XX}` instead, and a backslash as
/// `\\` (so an escape in the log always means the client sent that character). Printable text,
/// non-ASCII letters included, is kept as is.
public enum LogText {
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            case _ where needsEscape(scalar): out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 controls, DEL, C1 controls, the backslash, and the bidirectional formatting characters
    /// (U+061C, U+200E/F, U+202A–202E, U+2066–2069), plus the line and paragraph separators.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x5C, 0x7F...0x9F, 0x61C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
