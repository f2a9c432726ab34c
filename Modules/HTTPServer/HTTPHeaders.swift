/// One header field as it was sent (or will be sent): the name keeps its spelling, lookups ignore case.
public struct HTTPField: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Header fields in order, with case-insensitive lookup by name (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPField] = []

    public init() {}

    public init(_ fields: [HTTPField]) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }

    public var count: Int { fields.count }

    /// The first value of `name` (any case), or nil.
    public subscript(_ name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of `name` (any case), in order.
    public func values(_ name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { fields.contains { Self.sameName($0.name, name) } }

    /// Adds a field after the others (a second `Set-Cookie`, say).
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Replaces every field named `name` with one holding `value`.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Whether the comma-separated list in the fields named `name` holds `token` (any case),
    /// e.g. `Connection: keep-alive, Upgrade` holds `upgrade`.
    public func listContains(_ name: String, token: String) -> Bool {
        values(name).contains { value in
            value.split(separator: ",").contains { Self.sameName($0.trimmingSpaces, token) }
        }
    }

    /// ASCII case-insensitive equality (field names and tokens are ASCII).
    static func sameName<A: StringProtocol, B: StringProtocol>(_ a: A, _ b: B) -> Bool {
        let x = a.utf8
        let y = b.utf8
        guard x.count == y.count else { return false }
        return zip(x, y).allSatisfy { lowercased($0) == lowercased($1) }
    }

    static func lowercased(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingSpaces: Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return s[s.endIndex...] }
        let last = s.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return s[first...last]
    }
}
