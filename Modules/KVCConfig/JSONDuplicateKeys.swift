/// Finds keys repeated within one JSON object, which the JSON parser resolves silently ("last wins").
///
/// In configuration a repeated key is two entries for one thing (the same class twice in one
/// event table), so each repeat is reported as a conflict naming both places. Runs only on text
/// that already parsed, so it can assume well-formed JSON nested at most 512 deep.
enum JSONDuplicateKeys {
    /// Every repeat: the later key's place, and the first one's.
    static func find(_ bytes: some Collection<UInt8>, file: String) -> [ConfigProblem] {
        var s = Scanner(bytes: Array(bytes), file: file)
        s.skipBOM()
        s.value(path: .root)
        return s.problems
    }

    private struct Scanner {
        let bytes: [UInt8]
        let file: String
        var pos = 0
        var problems: [ConfigProblem] = []

        init(bytes: [UInt8], file: String) {
            self.bytes = bytes
            self.file = file
        }

        mutating func skipBOM() {
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
        }

        mutating func space() {
            while pos < bytes.count, bytes[pos] == 0x20 || bytes[pos] == 0x09 || bytes[pos] == 0x0A || bytes[pos] == 0x0D { pos += 1 }
        }

        func location(_ path: DocumentPath, at offset: Int) -> ConfigLocation {
            let (line, column) = TextPosition.lineColumn(bytes, offset)
            return ConfigLocation(file: file, keyPath: path.text, line: line, column: column)
        }

        mutating func value(path: DocumentPath) {
            space()
            guard pos < bytes.count else { return }
            switch bytes[pos] {
            case UInt8(ascii: "{"):
                pos += 1
                var seen: [String: Int] = [:]
                while pos < bytes.count {
                    space()
                    guard pos < bytes.count else { return }
                    if bytes[pos] == UInt8(ascii: "}") {
                        pos += 1
                        return
                    }
                    if bytes[pos] == UInt8(ascii: ",") {
                        pos += 1
                        continue
                    }
                    let keyStart = pos
                    let key = string()
                    if let first = seen[key] {
                        problems.append(
                            ConfigProblem(
                                code: .conflict, location: location(path.key(key), at: keyStart),
                                expected: "each key once in an object", found: "\"\(key)\" again",
                                otherLocation: location(path.key(key), at: first)))
                    } else {
                        seen[key] = keyStart
                    }
                    space()
                    if pos < bytes.count, bytes[pos] == UInt8(ascii: ":") { pos += 1 }
                    value(path: path.key(key))
                }
            case UInt8(ascii: "["):
                pos += 1
                var i = 0
                while pos < bytes.count {
                    space()
                    guard pos < bytes.count else { return }
                    if bytes[pos] == UInt8(ascii: "]") {
                        pos += 1
                        return
                    }
                    if bytes[pos] == UInt8(ascii: ",") {
                        pos += 1
                        continue
                    }
                    value(path: path.index(i))
                    i += 1
                }
            case UInt8(ascii: "\""):
                _ = string()
            default:
                while pos < bytes.count, !",]} \t\r\n".utf8.contains(bytes[pos]) { pos += 1 }
            }
        }

        /// Decodes the string at `pos` (escapes included), leaving `pos` after its closing quote.
        mutating func string() -> String {
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else { return "" }
            pos += 1
            var out: [UInt8] = []
            var pendingHigh: UInt32?
            while pos < bytes.count {
                let b = bytes[pos]
                pos += 1
                if b == UInt8(ascii: "\"") { break }
                guard b == UInt8(ascii: "\\"), pos < bytes.count else {
                    out.append(b)
                    continue
                }
                let e = bytes[pos]
                pos += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard pos + 4 <= bytes.count, let u = UInt32(String(decoding: bytes[pos..<(pos + 4)], as: UTF8.self), radix: 16) else {
                        continue
                    }
                    pos += 4
                    var scalarValue = u
                    if (0xD800..<0xDC00).contains(u) {
                        pendingHigh = u
                        continue
                    }
                    if (0xDC00..<0xE000).contains(u), let high = pendingHigh {
                        scalarValue = 0x10000 + ((high - 0xD800) << 10) + (u - 0xDC00)
                    }
                    pendingHigh = nil
                    if let scalar = Unicode.Scalar(scalarValue) { out.append(contentsOf: Array(String(Character(scalar)).utf8)) }
                default: out.append(e)
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}

/// Line and column of a byte offset, for error locations.
enum TextPosition {
    /// 1-based line, and 1-based column counted in characters (UTF-8 continuation bytes skipped).
    static func lineColumn(_ bytes: [UInt8], _ offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }
}
