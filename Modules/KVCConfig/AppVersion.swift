/// An app version such as `1.2.0`: dot-separated whole numbers, compared part by part, a missing part being 0.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var parts: [Int]

    public init(parts: [Int]) { self.parts = parts }

    /// Parses `1`, `1.2`, `1.2.3`, ...; nil for anything else.
    public init?(_ text: some StringProtocol) {
        var parts: [Int] = []
        for p in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !p.isEmpty, p.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let v = Int(p) else { return nil }
            parts.append(v)
        }
        guard !parts.isEmpty else { return nil }
        self.parts = parts
    }

    public static func < (a: AppVersion, b: AppVersion) -> Bool { compare(a, b) < 0 }
    public static func == (a: AppVersion, b: AppVersion) -> Bool { compare(a, b) == 0 }

    public func hash(into hasher: inout Hasher) {
        // `1.2` and `1.2.0` are equal, so trailing zeros must not change the hash.
        var trimmed = parts[...]
        while trimmed.last == 0 { trimmed = trimmed.dropLast() }
        hasher.combine(Array(trimmed))
    }

    static func compare(_ a: AppVersion, _ b: AppVersion) -> Int {
        for i in 0..<max(a.parts.count, b.parts.count) {
            let x = i < a.parts.count ? a.parts[i] : 0
            let y = i < b.parts.count ? b.parts[i] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }

    public var description: String { parts.map(String.init).joined(separator: ".") }
}
