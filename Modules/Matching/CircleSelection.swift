public import KVCConfig
public import ViewIdentity

/// What a back end selects to count the events a rule covers ("circle selection"): a regular
/// expression over stored canonical paths, and the title those events must carry.
///
/// `pathRegex` is anchored (`^…$`) and keeps to the subset that POSIX ERE (`regcomp` with
/// `REG_EXTENDED`, SQLite's and PostgreSQL's `~`) and ICU (`NSRegularExpression`, MySQL 8) read
/// alike: literal characters, backslash escapes of `^.[$()|*+?{\`, `[0-9]+`, `(…)?`. Names are
/// escaped so a name such as `DetailViewController(gift)` or `Outer.Inner` stays literal.
/// `title`, when not nil, is compared for equality with the event's stored title, separately
/// (no regex), because titles are free text: `path ~ pathRegex AND title = title`.
public struct CircleSelection: Sendable, Hashable {
    public var pathRegex: String
    /// The rule's `content`; nil selects events whatever their title.
    public var title: String?

    public init(pathRegex: String, title: String?) {
        self.pathRegex = pathRegex
        self.title = title
    }

    /// The selection covering the events `rule` matches (its view event is filtered on its own column).
    public init(rule: KVCRule) {
        self.init(pattern: rule.viewPath, content: rule.content)
    }

    /// The selection for a path pattern and an optional content.
    public init(pattern: PathPattern, content: String? = nil) {
        var r = "^"
        for (i, name) in pattern.names.enumerated() {
            if i > 0 { r += "-" }
            r += CircleSelection.escape(name)
        }
        r += "&"
        for (i, index) in pattern.indexes.enumerated() {
            if i > 0 { r += "-" }
            switch index {
            case .any: r += "[0-9]+(:[0-9]+)?"
            case .anyRow(let s): r += "\(s):[0-9]+"
            case .exact(let e): r += e.description
            }
        }
        r += "$"
        self.init(pathRegex: r, title: content)
    }

    /// Escapes every character either dialect treats as special; `]` and `}` are bracketed, since
    /// ERE leaves `\]` and `\}` undefined while ICU wants `}` quoted.
    static func escape(_ name: String) -> String {
        var out = ""
        out.reserveCapacity(name.utf8.count)
        for ch in name.unicodeScalars {
            switch ch {
            case "^", ".", "[", "$", "(", ")", "|", "*", "+", "?", "{", "\\":
                out += "\\"
                out.unicodeScalars.append(ch)
            case "]": out += "[]]"
            case "}": out += "[}]"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
