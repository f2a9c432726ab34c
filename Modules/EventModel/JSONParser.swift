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

/// What reads an object's members as `JSONParser.parseMembers(into:)` meets them: the object's
/// syntax is spelled once, and each reader decides what a member's value becomes (a generic
/// value for `ObjectBuilder`, an event field for `EventMemberReader`).
protocol JSONMemberReader {
    /// Reads the value of the member named `key` (its opening quote at `keyStart`); the parser
    /// stands at the value.
    mutating func member(_ key: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError)
}

/// What reads an array's elements as `JSONParser.parseElements(into:)` meets them.
protocol JSONElementReader {
    /// Reads element `index` (from 0); the parser stands at it.
    mutating func element(_ index: Int, parser: inout JSONParser) throws(JSONParseError)
}

/// Collects an array's elements as generic values.
struct ArrayBuilder: JSONElementReader {
    var array: [JSONValue] = []

    mutating func element(_ index: Int, parser: inout JSONParser) throws(JSONParseError) {
        if parser.onDuplicateKey != nil { parser.path.append(.index(index)) }
        array.append(try parser.parseValue())
        if parser.onDuplicateKey != nil { parser.path.removeLast() }
    }
}

/// A string literal as read: its bytes when they are ASCII with no escape (nothing to check or
/// decode, so a key can be matched without making a String), else its decoded text.
enum JSONStringToken {
    case ascii(Range<Int>)
    case decoded(String)
}

/// Collects an object's members, last one winning for a repeated key (as `JSONObject`'s setter),
/// without a quadratic scan: small objects check linearly, larger ones through a dictionary, so a
/// hostile body with a hundred thousand keys costs linear time.
struct ObjectBuilder: JSONMemberReader {
    private var members: [(key: String, value: JSONValue)] = []
    private var positions: [String: Int]?
    /// The first offset of each key, kept only for `JSONParser.onDuplicateKey`.
    private var keyOffsets: [String: Int] = [:]

    mutating func member(_ token: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError) {
        let key = parser.string(token)
        if let onDuplicateKey = parser.onDuplicateKey {
            if let first = keyOffsets[key] {
                onDuplicateKey(JSONDuplicateKey(path: parser.path, key: key, offset: keyStart, firstOffset: first))
            } else {
                keyOffsets[key] = keyStart
            }
            parser.path.append(.key(key))
        }
        let value = try parser.parseValue()
        if parser.onDuplicateKey != nil { parser.path.removeLast() }
        // A repeated key is never canonical: the writer writes each key once.
        if add(key, value) { parser.canonical = false }
    }

    /// Adds a member; true when it replaced an earlier one of the same key.
    @discardableResult
    mutating func add(_ key: String, _ value: JSONValue) -> Bool {
        if positions == nil {
            if let i = members.firstIndex(where: { $0.key == key }) {
                members[i].value = value
                return true
            }
            members.append((key, value))
            if members.count > 16 {
                var p: [String: Int] = [:]
                p.reserveCapacity(members.count * 2)
                for (i, m) in members.enumerated() { p[m.key] = i }
                positions = p
            }
            return false
        }
        if let i = positions![key] {
            members[i].value = value
            return true
        }
        positions![key] = members.count
        members.append((key, value))
        return false
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
    /// Cleared when the text read since it was last set is not what `JSONValue.write(to:)`
    /// writes for its value (white space, an escape, a repeated key, a number written
    /// otherwise): an event's `props` read with it still set are stored as sent, unwritten.
    var canonical = true

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
        guard pos < bytes.count, bytes[pos] <= 0x20 else { return }
        let start = pos
        defer { if pos > start { canonical = false } }
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
        var builder = ObjectBuilder()
        try parseMembers(into: &builder)
        return .object(builder.object)
    }

    /// Reads an object (the parser at its `{`), handing each member to `reader`.
    mutating func parseMembers<Reader: JSONMemberReader>(into reader: inout Reader) throws(JSONParseError) {
        try enter()
        pos += 1
        skipSpace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return
        }
        while true {
            skipSpace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
                throw error(pos < bytes.count ? "expected a member name in double quotes" : "unexpected end of input in an object")
            }
            let keyStart = pos
            let key = try parseStringToken()
            skipSpace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            pos += 1
            skipSpace()
            try reader.member(key, at: keyStart, parser: &self)
            skipSpace()
            guard pos < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                depth -= 1
                return
            }
            throw error("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        var builder = ArrayBuilder()
        try parseElements(into: &builder)
        return .array(builder.array)
    }

    /// Reads an array (the parser at its `[`), handing each element to `reader`.
    mutating func parseElements<Reader: JSONElementReader>(into reader: inout Reader) throws(JSONParseError) {
        try enter()
        pos += 1
        skipSpace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return
        }
        var index = 0
        while true {
            skipSpace()
            try reader.element(index, parser: &self)
            index += 1
            skipSpace()
            guard pos < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                depth -= 1
                return
            }
            throw error("expected ',' or ']' in an array")
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = pos
        var isInteger = true
        let negative = bytes[pos] == UInt8(ascii: "-")
        if negative { pos += 1 }
        guard pos < bytes.count, isDigit(bytes[pos]) else { throw error("invalid number", at: start) }
        let digitsStart = pos
        // The integer part's value as its digits pass (wrapping; used only for up to 18 digits,
        // which cannot overflow): most numbers on the wire are such integers, read in one pass.
        var magnitude: Int64 = 0
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < bytes.count, isDigit(bytes[pos]) { throw error("leading zeros are not allowed in numbers", at: start) }
        } else {
            while pos < bytes.count, isDigit(bytes[pos]) {
                magnitude = magnitude &* 10 &+ Int64(bytes[pos] &- 0x30)
                pos += 1
            }
        }
        let digits = pos - digitsStart
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
        if isInteger, let i = digits <= 18 ? (negative ? -magnitude : magnitude) : integer(start..<pos) {
            // "-0" is written "0".
            if i == 0, negative { canonical = false }
            return .int(i)
        }
        let literal = UnsafeBufferPointer(rebasing: bytes[start..<pos])
        guard let d = Double(String(decoding: literal, as: UTF8.self)) else { throw error("invalid number", at: start) }
        if canonical { canonical = JSONValue.double(d).jsonBytes.elementsEqual(literal) }
        return .double(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// An already validated integer literal, straight from its digits; nil when it does not fit
    /// Int64 (it is then read as a double). `parseNumber` reads one of up to 18 digits itself.
    /// Most numbers on the wire are timestamps and counts, and a temporary String per number was
    /// most of the parse time.
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
        string(try parseStringToken())
    }

    /// The text of a string literal already read. `mutating` though it changes nothing: called
    /// from the parser's mutating methods, a non-mutating method made the compiler copy the
    /// parser (its closure and path retained and released) for every string.
    mutating func string(_ token: JSONStringToken) -> String {
        switch token {
        case .ascii(let range): return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .decoded(let s): return s
        }
    }

    /// Reads a string literal (the parser at its opening quote).
    @inline(__always)
    mutating func parseStringToken() throws(JSONParseError) -> JSONStringToken {
        if let range = parseShortString() { return .ascii(range) }
        return try parseLongerStringToken()
    }

    /// `parseStringToken` for a literal that is not short (`parseShortString`).
    @inline(never)
    private mutating func parseLongerStringToken() throws(JSONParseError) -> JSONStringToken {
        let start = pos
        switch try parseStringInPlace() {
        case .inPlace(let range, ascii: true)?: return .ascii(range)
        case .inPlace(let range, ascii: false)?:
            return .decoded(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
        default:
            var unescaped: [UInt8] = []  // allocated only for a string with an escape
            let range = try parseEscapedString(from: start, into: &unescaped)
            return .decoded(unescaped.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) })
        }
    }

    /// Where a string literal's text lies once read, its UTF-8 checked: in `bytes` when it has
    /// no escape (`ascii`: every byte below 0x80), else unescaped at the end of the caller's buffer.
    enum StringBytes {
        case inPlace(Range<Int>, ascii: Bool)
        case unescaped(Range<Int>)
    }

    /// Reads a string literal (the parser at its opening quote) without making a `String`: the
    /// text of one with an escape is appended to `out`. Every literal is read here, so a
    /// `String` made from the bytes is the literal's text and never fails.
    @inline(__always)
    mutating func parseStringBytes(unescapingInto out: inout [UInt8]) throws(JSONParseError) -> StringBytes {
        if let range = parseShortString() { return .inPlace(range, ascii: true) }
        return try parseLongerStringBytes(unescapingInto: &out)
    }

    /// `parseStringBytes` for a literal that is not short (`parseShortString`).
    @inline(never)
    private mutating func parseLongerStringBytes(unescapingInto out: inout [UInt8]) throws(JSONParseError) -> StringBytes {
        let start = pos
        if let inPlace = try parseStringInPlace() { return inPlace }
        return .unescaped(try parseEscapedString(from: start, into: &out))
    }

    /// The bytes of `w` that stop a plain run of a string literal: a quote, a backslash or a
    /// control byte (`ByteWord`'s tests: exact for the lowest).
    @inline(__always)
    static func stringStops(in w: UInt64) -> UInt64 {
        ByteWord.quoteOrControlBytes(of: w) | ByteWord.bytes(of: w, equalTo: UInt8(ascii: "\\"))
    }

    /// Reads a literal of at most 7 ASCII bytes and no escape (the parser at its opening quote)
    /// from the one word after its quote, inlined where it is read: most member names and many
    /// values are such. Nil, the parser unmoved, for any other literal (or fewer than 8 bytes
    /// after the quote).
    @inline(__always)
    mutating func parseShortString() -> Range<Int>? {
        guard let base = bytes.baseAddress, pos &+ 9 <= bytes.count else { return nil }
        let w = UnsafeRawPointer(base + pos + 1).loadUnaligned(as: UInt64.self)
        let found = Self.stringStops(in: w)
        guard found != 0 else { return nil }
        let count = ByteWord.firstMatch(found)
        guard base[pos &+ 1 &+ count] == UInt8(ascii: "\""), w & ByteWord.lowBytes(count) & ByteWord.tops == 0 else {
            return nil
        }
        let range = (pos &+ 1)..<(pos &+ 1 &+ count)
        pos = range.upperBound &+ 1
        return range
    }

    /// Reads a string literal with no escape (the parser at its opening quote): its bytes where
    /// they lie, their UTF-8 checked. Nil when the literal has a backslash or a control byte or
    /// the input ends first: the parser then stands at that byte (or the end), every byte
    /// before it plain, for `parseEscapedString`.
    mutating func parseStringInPlace() throws(JSONParseError) -> StringBytes? {
        let start = pos
        var scan = pos + 1
        guard let base = bytes.baseAddress else {
            pos = scan
            return nil
        }
        // Eight bytes at a time while none is a quote, a backslash or a control byte (each test
        // exact for whether any byte is one), then byte by byte from the one that is; the bytes
        // passed or-ed together, for whether any is not ASCII.
        var passed: UInt64 = 0
        while scan + 8 <= bytes.count {
            let w = UnsafeRawPointer(base + scan).loadUnaligned(as: UInt64.self)
            let found = Self.stringStops(in: w)
            if found != 0 {
                let before = ByteWord.firstMatch(found)
                passed |= w & ByteWord.lowBytes(before)
                scan &+= before
                break
            }
            passed |= w
            scan &+= 8
        }
        while scan < bytes.count {
            let b = base[scan]
            if b == UInt8(ascii: "\"") {
                let range = (start + 1)..<scan
                pos = scan + 1
                // ASCII needs no validation.
                if passed & ByteWord.tops == 0 { return .inPlace(range, ascii: true) }
                guard Self.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[range])) else {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                return .inPlace(range, ascii: false)
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            passed |= UInt64(b)
            scan += 1
        }
        pos = scan
        return nil
    }

    /// The rest of a string literal that `parseStringInPlace` stopped in (its opening quote at
    /// `start`, the parser at the backslash, control byte or end it stopped at), unescaped onto
    /// the end of `out`: where the text lies in `out`.
    mutating func parseEscapedString(from start: Int, into out: inout [UInt8]) throws(JSONParseError) -> Range<Int> {
        canonical = false  // an escape (the writer escapes only what must be, the same way or not)
        let outStart = out.count
        // Only into an empty buffer: reserving a little more each time would grow it linearly.
        if outStart == 0 { out.reserveCapacity(pos - start + 16) }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<pos]))
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
                UTF8.encode(u) { out.append($0) }
            default:
                throw error("invalid escape '\\\(printable(e))'", at: pos - 2)
            }
        }
        let range = outStart..<out.count
        guard out.withUnsafeBufferPointer({ Self.isValidUTF8(UnsafeBufferPointer(rebasing: $0[range])) }) else {
            throw error("invalid UTF-8 in a string", at: start)
        }
        return range
    }

    /// Whether `bytes` are well-formed UTF-8: the standard library's check, without the copy a
    /// `String` would make.
    static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? UTF8Span(validating: bytes.span)) != nil
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
