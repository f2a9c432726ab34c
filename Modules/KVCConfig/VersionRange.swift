/// Which app versions a rule holds for: `*`, an exact version, or space-joined comparators that must all hold.
public struct VersionRange: Sendable, Hashable, CustomStringConvertible {
    /// One comparison.
    public enum Comparator: Sendable, Hashable {
        case greaterOrEqual(AppVersion), greater(AppVersion), lessOrEqual(AppVersion), less(AppVersion), equal(AppVersion)

        func holds(for v: AppVersion) -> Bool {
            switch self {
            case .greaterOrEqual(let b): return v >= b
            case .greater(let b): return v > b
            case .lessOrEqual(let b): return v <= b
            case .less(let b): return v < b
            case .equal(let b): return v == b
            }
        }
    }

    /// Empty means `*`: every version.
    public var comparators: [Comparator]
    public var text: String

    public static let any = VersionRange(comparators: [], text: "*")

    init(comparators: [Comparator], text: String) {
        self.comparators = comparators
        self.text = text
    }

    /// Parses a range; a malformed one is an error here, never a silent "matches nothing".
    public init(_ text: String) throws(VersionRangeError) {
        let trimmed = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !trimmed.isEmpty else { throw VersionRangeError(text: text, reason: "is empty (use \"*\" for every version)") }
        if trimmed.count == 1, trimmed[0] == "*" {
            self = VersionRange(comparators: [], text: text)
            return
        }
        var cs: [Comparator] = []
        for token in trimmed {
            let ops: [(String, (AppVersion) -> Comparator)] = [
                (">=", Comparator.greaterOrEqual), ("<=", Comparator.lessOrEqual), (">", Comparator.greater),
                ("<", Comparator.less), ("=", Comparator.equal),
            ]
            var made: Comparator?
            for (op, make) in ops where token.hasPrefix(op) {
                let rest = token.dropFirst(op.count)
                guard let v = AppVersion(rest) else {
                    throw VersionRangeError(
                        text: text, reason: "has \"\(token)\": \"\(rest)\" is not a version (expected numbers joined by dots)")
                }
                made = make(v)
                break
            }
            if made == nil {
                if token == "*" {
                    throw VersionRangeError(text: text, reason: "mixes \"*\" with comparators")
                }
                guard let v = AppVersion(token) else {
                    throw VersionRangeError(
                        text: text,
                        reason: "has \"\(token)\", which is neither a version nor a comparator (>=, >, <=, <, = then a version)")
                }
                made = .equal(v)
            }
            cs.append(made!)
        }
        self = VersionRange(comparators: cs, text: text)
    }

    /// True when every comparator holds for `version`.
    public func contains(_ version: AppVersion) -> Bool {
        comparators.allSatisfy { $0.holds(for: version) }
    }

    /// True when the range holds `version`; an unknown version (nil: none given, or not a
    /// version) is held only by `*`. This is how `CONFIG` serves rules and how a rule's stored
    /// events are selected (docs/config.md §3, docs/reports.md).
    public func holds(_ version: AppVersion?) -> Bool {
        guard let version else { return comparators.isEmpty }
        return contains(version)
    }

    /// `holds` for a version as the app gave it (`HELLO`'s `appVersion`).
    public func holds(versionText: String?) -> Bool {
        holds(versionText.flatMap { AppVersion($0) })
    }

    public var description: String { text }
}

/// A version range that cannot be read.
public struct VersionRangeError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public var description: String { "version range \"\(text)\" \(reason)" }
}
