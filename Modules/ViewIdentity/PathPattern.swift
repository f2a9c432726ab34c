/// A canonical form whose indexes may be wildcards: `*` any index, `s:*` any row of section s (viewpath.md §3).
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// What one index of a pattern accepts.
    public enum IndexPattern: Sendable, Hashable, CustomStringConvertible {
        case any
        case exact(PathIndex)
        case anyRow(section: Int)

        public func matches(_ index: PathIndex) -> Bool {
            switch self {
            case .any: return true
            case .exact(let e): return e == index
            case .anyRow(let s):
                if case .cell(let ip) = index { return ip.section == s }
                return false
            }
        }

        public var description: String {
            switch self {
            case .any: return "*"
            case .exact(let i): return i.description
            case .anyRow(let s): return "\(s):*"
            }
        }
    }

    public var names: [String]
    public var indexes: [IndexPattern]
    /// The text as written.
    public var text: String

    /// Parses a pattern; errors point at the bad character.
    public init(_ text: String) throws(ViewPathParseError) {
        let parts = try CanonicalSplitter.split(text)
        var idx: [IndexPattern] = []
        idx.reserveCapacity(parts.indexes.count)
        for (s, offset) in parts.indexes {
            if s == "*" {
                idx.append(.any)
            } else if s.hasSuffix(":*") {
                let sec = s.dropLast(2)
                idx.append(.anyRow(section: try CanonicalSplitter.number(sec, text: text, offset: offset)))
            } else {
                idx.append(.exact(try PathIndex.parse(s, text: text, offset: offset)))
            }
        }
        self.names = parts.names.map(String.init)
        self.indexes = idx
        self.text = text
    }

    public var elementCount: Int { names.count }

    /// True when every index is exact, so the pattern names exactly one path.
    public var isExact: Bool {
        indexes.allSatisfy { if case .exact = $0 { return true } else { return false } }
    }

    /// Same element count, equal names, every index matching. Allocates nothing.
    public func matches(_ path: ViewPath) -> Bool {
        let els = path.elements
        guard els.count == names.count else { return false }
        for i in 0..<els.count {
            guard indexes[i].matches(els[i].index), names[i] == els[i].name else { return false }
        }
        return true
    }

    public var description: String { text }
}
