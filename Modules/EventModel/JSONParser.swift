/// Where and why a JSON text failed to parse.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset of the offending character, from 0.
    public var offset: Int
    /// Line (from 1) and column (from 1, in bytes) of the offending character.
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "line \(line), column \(column): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON value (RFC 8259) from UTF-8 bytes; white space may surround it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = JSONParser(buffer)
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses like `parse(_:)`, telling `onDuplicateKey` of every key repeated within one object
    /// (the value keeps the last, as always): for formats where a repeat is a mistake to report.
    public static func parse(
        _ bytes: some Collection<UInt8>, onDuplicateKey: (JSONDuplicateKey) -> Void
    ) throws(JSONParseError) -> JSONValue {
        let array = Array(bytes)
        return try withoutActuallyEscaping(onDuplicateKey) { (report) throws(JSONParseError) -> JSONValue in
            try array.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
                var parser = JSONParser(buffer)
                parser.onDuplicateKey = report
                return try parser.parseDocument()
            }
        }
    }
}

/// A key that appears twice in one JSON object.
public struct JSONDuplicateKey: Sendable, Hashable {
    /// One step from the root to the object holding the key.
    public enum Step: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    /// The steps from the root to the object holding the key.
    public var path: [Step]
    public var key: String
    /// Byte offsets of the repeated key's opening quote, and of the first one's.
    public var offset: Int
    public var firstOffset: Int
}

/// Collects an object's members, last one winning for a repeated key (as `JSONObject`'s setter),
/// without a quadratic scan: small objects check linearly, larger ones through a dictionary, so a
/// hostile body with a hundred thousand keys costs linear time.
struct ObjectBuilder {
    private var members: [(key: String, value: JSONValue)] = []
    private var positions: [String: Int]?

    mutating func add(_ key: String, _ value: JSONValue) {
        if positions == nil {
            if let i = members.firstIndex(where: { $0.key == key }) {
                members[i].value = value
                return
            }
            members.append((key, value))
            if members.count > 16 {
                var p: [String: Int] = [:]
                p.reserveCapacity(members.count * 2)
                for (i, m) in members.enumerated() { p[m.key] = i }
                positions = p
            }
            return
        }
        if let i = positions![key] {
            members[i].value = value
        } else {
            positions![key] = members.count
            members.append((key, value))
        }
    }

    var object: JSONObject { JSONObject(uniqueMembers: members) }
}

/// A recursive-descent parser over a byte buffer, with a nesting limit so hostile input
/// cannot exhaust the stack.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var pos = 0
    var depth = 0
    static let maxDepth = 512
    /// Told of keys repeated in one object; the path is kept only when it is set.
    var onDuplicateKey: ((JSONDuplicateKey) -> Void)?
    var path: [JSONDuplicateKey.Step] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipSpace()
        let value = try parseValue()
        skipSpace()
        if pos < bytes.count { throw error("unexpected text after the JSON value") }
        return value
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let at = min(offset ?? pos, bytes.count)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < at {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return JSONParseError(offset: at, line: line, column: at - lineStart + 1, reason: reason)
    }

    mutating func skipSpace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(printable(bytes[pos]))', expected a value")
        }
    }

    func printable(_ b: UInt8) -> String {
        (0x20..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "\\u{\(String(b, radix: 16))}"
    }

    mutating func expectWord(_ word: StaticString) throws(JSONParseError) {
        let start = pos
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for c in w {
            guard pos < bytes.count, bytes[pos] == c else { throw error("invalid literal", at: start) }
            pos += 1
        }
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        skipSpace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return .object(JSONObject())
        }
        var members = ObjectBuilder()
        var keyOffsets: [String: Int] = [:]
        while true {
            skipSpace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
                throw error(pos < bytes.count ? "expected a member name in double quotes" : "unexpected end of input in an object")
            }
            let keyStart = pos
            let key = try parseString()
            if let onDuplicateKey {
                if let first = keyOffsets[key] {
                    onDuplicateKey(JSONDuplicateKey(path: path, key: key, offset: keyStart, firstOffset: first))
                } else {
                    keyOffsets[key] = keyStart
                }
            }
            skipSpace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            pos += 1
            skipSpace()
            if onDuplicateKey != nil { path.append(.key(key)) }
            let value = try parseValue()
            if onDuplicateKey != nil { path.removeLast() }
            members.add(key, value)
            skipSpace()
            guard pos < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                depth -= 1
                return .object(members.object)
            }
            throw error("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        pos += 1
        var array: [JSONValue] = []
        skipSpace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return .array(array)
        }
        while true {
            skipSpace()
            if onDuplicateKey != nil { path.append(.index(array.count)) }
            array.append(try parseValue())
            if onDuplicateKey != nil { path.removeLast() }
            skipSpace()
            guard pos < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                depth -= 1
                return .array(array)
            }
            throw error("expected ',' or ']' in an array")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = pos
        var isInteger = true
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number", at: start) }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count, isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            isInteger = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected a digit after '.'") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            isInteger = false
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("expected a digit in the exponent") }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        if isInteger, let i = integer(start..<pos) { return .int(i) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        guard let d = Double(text) else { throw error("invalid number", at: start) }
        return .double(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// An already validated integer literal, straight from its digits; nil when it does not fit
    /// Int64 (it is then read as a double). Most numbers on the wire are timestamps and counts,
    /// and a temporary String per number was most of the parse time.
    func integer(_ range: Range<Int>) -> Int64? {
        var i = range.lowerBound
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var v: Int64 = 0
        while i < range.upperBound {
            let d = Int64(bytes[i] &- 0x30)
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (a, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            v = a
            i += 1
        }
        return v
    }

    mutating func parseString() throws(JSONParseError) -> String {
        let start = pos
        pos += 1
        // Fast path: no escapes; the bytes are validated as UTF-8 below.
        var scan = pos
        var high: UInt8 = 0
        while scan < bytes.count {
            let b = bytes[scan]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[pos..<scan])
                // ASCII needs no validation; `String(validating:)` is generic and costs a
                // metadata lookup per call, which was a third of the parse.
                let s: String
                if high < 0x80 {
                    s = String(decoding: slice, as: UTF8.self)
                } else {
                    guard let v = String(validating: slice, as: UTF8.self) else {
                        throw error("invalid UTF-8 in a string", at: start)
                    }
                    s = v
                }
                pos = scan + 1
                return s
            }
            high |= b
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            scan += 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(scan - pos + 16)
        while true {
            guard pos < bytes.count else { throw error("unterminated string", at: start) }
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                pos += 1
                break
            }
            if b < 0x20 { throw error("control character in a string (escape it)") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                pos += 1
                continue
            }
            pos += 1
            guard pos < bytes.count else { throw error("unterminated escape", at: start) }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try parseHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    pos += 2
                    let low = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape '\\\(printable(e))'", at: pos - 2)
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: start) }
        return s
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw error("incomplete \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }
}
