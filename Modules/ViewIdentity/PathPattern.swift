/// A canonical form whose indexes may be wildcards: `*` any index, `s:*` any row of section s (docs/viewpath.md §3).
///
/// Parse once (config load), then `matches` runs per event without allocating.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    /// What one index of a pattern accepts.
    public enum IndexPattern: Sendable, Hashable, CustomStringConvertible {
        /// `*`: any index, a position or a cell's `s:r`.
        case any
        /// `n` or `s:r`: exactly that index.
        case exact(PathIndex)
        /// `s:*`: a cell of section `s`, any row. Positions (non-cells) never match.
        case anyRow(section: Int)

        /// Whether `index` is accepted.
        @inline(__always)
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

    /// The element names, matched exactly (by UTF-8 bytes).
    public var names: [String]
    /// One index pattern per name.
    public var indexes: [IndexPattern]
    /// The text as written.
    public var text: String

    /// Parses a pattern; errors point at the bad character.
    public init(_ text: String) throws(ViewPathParseError) {
        let scanner = CanonicalScanner(text)
        let parts = try scanner.parse { (s, _) throws(ViewPathParseError) -> IndexPattern in
            if s.count == 1, s.first == "*" { return .any }
            if let colon = s.firstIndex(of: ":"), s[(colon + 1)...].elementsEqual(["*"]) {
                return .anyRow(section: try scanner.number(s[..<colon], what: "section"))
            }
            return .exact(try scanner.pathIndex(s))
        }
        self.names = parts.names
        self.indexes = parts.indexes
        self.text = text
    }

    /// The pattern that matches exactly `path`.
    public init(exactly path: ViewPath) {
        names = path.elements.map(\.name)
        indexes = path.elements.map { .exact($0.index) }
        text = path.canonical
    }

    public var elementCount: Int { names.count }

    /// True when every index is exact, so the pattern names exactly one path.
    public var isExact: Bool {
        indexes.allSatisfy { if case .exact = $0 { return true } else { return false } }
    }

    /// Same element count, equal names, every index matching. Allocates nothing.
    public func matches(_ path: ViewPath) -> Bool {
        let count = names.count
        guard path.elements.count == count else { return false }
        return path.elements.withUnsafeBufferPointer { els in
            names.withUnsafeBufferPointer { names in
                indexes.withUnsafeBufferPointer { indexes in
                    // Indexes first (integer compares), then the names from the leaf up, where paths differ most.
                    for i in 0..<count where !indexes[i].matches(els[i].index) { return false }
                    var i = count
                    while i > 0 {
                        i -= 1
                        if !sameBytes(names[i], els[i].name) { return false }
                    }
                    return true
                }
            }
        }
    }

    public var description: String { text }

    public static func == (lhs: PathPattern, rhs: PathPattern) -> Bool {
        lhs.indexes == rhs.indexes && lhs.names.count == rhs.names.count
            && zip(lhs.names, rhs.names).allSatisfy { sameBytes($0, $1) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(names)
        hasher.combine(indexes)
    }
}
