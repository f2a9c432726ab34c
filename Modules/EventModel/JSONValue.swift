/// A JSON value that keeps integers exact and object keys in their written order.
///
/// Order matters because command output and wire frames are compared byte for byte by
/// outside tools; exact integers matter because timestamps are milliseconds since 1970.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

extension JSONValue {
    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer, when this is an integer (or a double with no fractional part).
    public var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where abs(d) < 9.007_199_254_740_992e15: return Int64(exactly: d)
        default: return nil
        }
    }

    /// The number as a double, when this is a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// True for strings, numbers, booleans and null.
    public var isScalar: Bool {
        switch self {
        case .array, .object: return false
        default: return true
        }
    }

    /// The member named `key`, when this is an object that has it.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// A short name of the kind of value, for error messages ("a string", "an object").
    public var kindDescription: String { kind.description }

    /// The kinds of JSON value, as error messages name them.
    public enum Kind: Sendable, CustomStringConvertible {
        case null, boolean, number, string, array, object

        public var description: String {
            switch self {
            case .null: return "null"
            case .boolean: return "a boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    /// The kind of value.
    public var kind: Kind {
        switch self {
        case .null: return .null
        case .bool: return .boolean
        case .int, .double: return .number
        case .string: return .string
        case .array: return .array
        case .object: return .object
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

/// A JSON object: members in the order they were written or added; a repeated key replaces
/// the earlier value in place (as most parsers' "last one wins").
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(_ pairs: [(String, JSONValue)]) {
        members = []
        members.reserveCapacity(pairs.count)
        for (k, v) in pairs { self[k] = v }
    }

    /// Members whose keys are known to be distinct (the parser's), taken as they are.
    init(uniqueMembers: [(key: String, value: JSONValue)]) {
        members = uniqueMembers
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }

    /// Makes room for `n` members, so adding up to `n` allocates at most once.
    public mutating func reserveCapacity(_ n: Int) { members.reserveCapacity(n) }
    public var keys: [String] { members.map(\.key) }

    /// Linear lookup: objects on the wire and in view props are small, and a scan of a
    /// few keys beats hashing them.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (a, b) in zip(lhs.members, rhs.members) where a.key != b.key || a.value != b.value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for m in members {
            hasher.combine(m.key)
            hasher.combine(m.value)
        }
    }
}
