public import EventModel

/// Reads an XML property list into a `JSONValue`, with errors that name the line, column and key path.
///
/// Foundation's `PropertyListSerialization` reports no position, so this small reader is used instead.
/// Dictionaries keep their written order; `<date>` and `<data>` are refused because no tracking
/// configuration field holds them; a key given twice in one dictionary is an error.
public enum PlistReader {
    /// Parses `bytes`; `file` names the document in errors.
    public static func parse(_ bytes: [UInt8], file: String) throws(ConfigError) -> JSONValue {
        var p = PlistParser(bytes: bytes, file: file)
        return try p.document()
    }
}

private struct PlistParser {
    let bytes: [UInt8]
    let file: String
    var pos = 0
    /// Nesting guard: a hostile document must not overflow the stack.
    var depth = 0
    static let maxDepth = 512

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    enum TagKind { case open, close, empty }
    struct Tag {
        var name: String
        var kind: TagKind
        var start: Int
    }

    // MARK: errors

    func fail(_ expected: String, found: String, at offset: Int? = nil, path: DocumentPath = .root) -> ConfigError {
        let (line, column) = TextPosition.lineColumn(bytes, offset ?? pos)
        return ConfigError(
            ConfigProblem(
                code: .syntax, location: ConfigLocation(file: file, keyPath: path.text, line: line, column: column),
                expected: expected, found: found))
    }

    func foundHere(_ at: Int? = nil) -> String {
        let start = at ?? pos
        guard start < bytes.count else { return "the end of the document" }
        var end = start
        while end < bytes.count, end - start < 20, bytes[end] != 0x0A { end += 1 }
        return "\"" + String(decoding: bytes[start..<end], as: UTF8.self) + "\""
    }

    // MARK: lexing

    func starts(with s: String, at i: Int) -> Bool {
        var j = i
        for b in s.utf8 {
            guard j < bytes.count, bytes[j] == b else { return false }
            j += 1
        }
        return true
    }

    mutating func skipWhitespace() {
        while pos < bytes.count, bytes[pos] == 0x20 || bytes[pos] == 0x09 || bytes[pos] == 0x0A || bytes[pos] == 0x0D {
            pos += 1
        }
    }

    /// Skips `terminator`-ended text from `pos`; false when the document ends first.
    mutating func skip(past terminator: String) -> Bool {
        while pos < bytes.count {
            if starts(with: terminator, at: pos) {
                pos += terminator.utf8.count
                return true
            }
            pos += 1
        }
        return false
    }

    /// Skips whitespace, comments, the XML declaration and the doctype.
    mutating func skipMisc() throws(ConfigError) {
        while true {
            skipWhitespace()
            let start = pos
            if starts(with: "<!--", at: pos) {
                guard skip(past: "-->") else { throw fail("\"-->\" closing the comment", found: "the end of the document", at: start) }
            } else if starts(with: "<?", at: pos) {
                guard skip(past: "?>") else { throw fail("\"?>\"", found: "the end of the document", at: start) }
            } else if starts(with: "<!DOCTYPE", at: pos) {
                var nest = 0
                while pos < bytes.count {
                    let b = bytes[pos]
                    pos += 1
                    if b == UInt8(ascii: "[") { nest += 1 }
                    if b == UInt8(ascii: "]") { nest -= 1 }
                    if b == UInt8(ascii: ">"), nest <= 0 { break }
                }
            } else {
                return
            }
        }
    }

    static func isNameByte(_ b: UInt8) -> Bool {
        (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || b == 0x2D || b == 0x5F
            || b == 0x3A || b == 0x2E
    }

    /// Reads `<name ...>`, `</name>` or `<name/>` at `pos`.
    mutating func tag(path: DocumentPath) throws(ConfigError) -> Tag {
        let start = pos
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: "<") else {
            throw fail("an element such as <dict>, <array> or <string>", found: foundHere(), path: path)
        }
        pos += 1
        var kind = TagKind.open
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "/") {
            kind = .close
            pos += 1
        }
        let nameStart = pos
        while pos < bytes.count, Self.isNameByte(bytes[pos]) { pos += 1 }
        guard pos > nameStart else { throw fail("an element name after '<'", found: foundHere(start), at: start, path: path) }
        let name = String(decoding: bytes[nameStart..<pos], as: UTF8.self)
        // Attributes: skipped, quotes respected.
        var quote: UInt8? = nil
        while pos < bytes.count {
            let b = bytes[pos]
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                pos += 1
                return Tag(name: name, kind: kind, start: start)
            } else if b == UInt8(ascii: "/"), pos + 1 < bytes.count, bytes[pos + 1] == UInt8(ascii: ">"), kind == .open {
                pos += 2
                return Tag(name: name, kind: .empty, start: start)
            } else if b == UInt8(ascii: "<") {
                break
            }
            pos += 1
        }
        throw fail("'>' closing <\(name)>", found: foundHere(), path: path)
    }

    /// Character data up to the closing `</name>`, entities and CDATA decoded.
    mutating func text(closing name: String, path: DocumentPath) throws(ConfigError) -> String {
        var out: [UInt8] = []
        while pos < bytes.count {
            let b = bytes[pos]
            if b == UInt8(ascii: "<") {
                if starts(with: "<![CDATA[", at: pos) {
                    let s = pos
                    pos += 9
                    let from = pos
                    guard skip(past: "]]>") else { throw fail("\"]]>\" closing CDATA", found: "the end of the document", at: s, path: path) }
                    out.append(contentsOf: bytes[from..<(pos - 3)])
                    continue
                }
                if starts(with: "<!--", at: pos) {
                    let s = pos
                    guard skip(past: "-->") else { throw fail("\"-->\" closing the comment", found: "the end of the document", at: s, path: path) }
                    continue
                }
                let t = try tag(path: path)
                guard t.kind == .close, t.name == name else {
                    throw fail("</\(name)>", found: "<\(t.kind == .close ? "/" : "")\(t.name)>", at: t.start, path: path)
                }
                return String(decoding: out, as: UTF8.self)
            }
            if b == UInt8(ascii: "&") {
                let s = pos
                guard let semi = bytes[pos...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
                    throw fail("an entity such as &amp; or &#60;", found: foundHere(s), at: s, path: path)
                }
                let entity = String(decoding: bytes[(pos + 1)..<semi], as: UTF8.self)
                var scalar: Unicode.Scalar?
                switch entity {
                case "lt": scalar = "<"
                case "gt": scalar = ">"
                case "amp": scalar = "&"
                case "quot": scalar = "\""
                case "apos": scalar = "'"
                default:
                    if entity.hasPrefix("#x") || entity.hasPrefix("#X") {
                        scalar = UInt32(entity.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
                    } else if entity.hasPrefix("#") {
                        scalar = UInt32(entity.dropFirst(1)).flatMap(Unicode.Scalar.init)
                    }
                }
                guard let scalar else {
                    throw fail("an entity such as &amp; or &#60;", found: "&\(entity);", at: s, path: path)
                }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
                pos = semi + 1
                continue
            }
            out.append(b)
            pos += 1
        }
        throw fail("</\(name)>", found: "the end of the document", path: path)
    }

    // MARK: grammar

    mutating func document() throws(ConfigError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        try skipMisc()
        let root = try tag(path: .root)
        guard root.name == "plist", root.kind == .open else {
            throw fail("<plist> as the root element", found: "<\(root.name)>", at: root.start)
        }
        try skipMisc()
        let value = try self.value(path: .root)
        try skipMisc()
        let close = try tag(path: .root)
        guard close.name == "plist", close.kind == .close else {
            throw fail("</plist> after the one root value", found: "<\(close.kind == .close ? "/" : "")\(close.name)>", at: close.start)
        }
        try skipMisc()
        guard pos == bytes.count else { throw fail("nothing after </plist>", found: foundHere()) }
        return value
    }

    mutating func value(path: DocumentPath) throws(ConfigError) -> JSONValue {
        try skipMisc()
        let t = try tag(path: path)
        guard t.kind != .close else {
            throw fail("a value (<dict>, <array>, <string>, <integer>, <real>, <true/>, <false/>)", found: "</\(t.name)>", at: t.start, path: path)
        }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw fail("at most \(Self.maxDepth) levels of nesting", found: "more", at: t.start, path: path) }
        switch t.name {
        case "dict":
            var o = JSONObject()
            if t.kind == .empty { return .object(o) }
            while true {
                try skipMisc()
                let k = try tag(path: path)
                if k.kind == .close, k.name == "dict" { return .object(o) }
                guard k.name == "key", k.kind != .close else {
                    throw fail("<key> or </dict>", found: "<\(k.kind == .close ? "/" : "")\(k.name)>", at: k.start, path: path)
                }
                let key = k.kind == .empty ? "" : try text(closing: "key", path: path)
                let valuePath = path.key(key)
                if o[key] != nil {
                    throw fail("each key once in a <dict>", found: "\"\(key)\" again", at: k.start, path: valuePath)
                }
                o[key] = try value(path: valuePath)
            }
        case "array":
            var a: [JSONValue] = []
            if t.kind == .empty { return .array(a) }
            while true {
                try skipMisc()
                if starts(with: "</", at: pos) {
                    let c = try tag(path: path)
                    guard c.name == "array" else { throw fail("</array>", found: "</\(c.name)>", at: c.start, path: path) }
                    return .array(a)
                }
                a.append(try value(path: path.index(a.count)))
            }
        case "string":
            return .string(t.kind == .empty ? "" : try text(closing: "string", path: path))
        case "integer":
            let s = t.kind == .empty ? "" : try text(closing: "integer", path: path)
            let trimmed = s.trimmingSpaces
            guard let i = Int64(trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed) else {
                throw fail("a whole number in <integer>", found: "\"\(s)\"", at: t.start, path: path)
            }
            return .int(i)
        case "real":
            let s = t.kind == .empty ? "" : try text(closing: "real", path: path)
            guard let d = Double(s.trimmingSpaces), d.isFinite else {
                throw fail("a finite number in <real>", found: "\"\(s)\"", at: t.start, path: path)
            }
            return .double(d)
        case "true", "false":
            if t.kind == .open {
                try skipMisc()
                let c = try tag(path: path)
                guard c.kind == .close, c.name == t.name else { throw fail("<\(t.name)/>", found: "content in <\(t.name)>", at: t.start, path: path) }
            }
            return .bool(t.name == "true")
        case "date", "data":
            throw fail("a string, number, boolean, array or dict (tracking configuration holds no <\(t.name)>)", found: "<\(t.name)>", at: t.start, path: path)
        default:
            throw fail("a property-list element (dict, array, string, integer, real, true, false)", found: "<\(t.name)>", at: t.start, path: path)
        }
    }
}

extension String {
    /// Without leading and trailing ASCII whitespace.
    var trimmingSpaces: String {
        let ws: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: ws).reversed().drop(while: ws).reversed())
    }
}
