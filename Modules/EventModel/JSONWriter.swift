extension JSONValue {
    /// Compact JSON text on one line (no LF anywhere, as the wire needs), keys in order.
    public var jsonText: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Compact JSON as UTF-8 bytes.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    /// Appends compact JSON to `out`.
    public func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): JSONValue.writeInteger(i, to: &out)
        case .double(let d):
            if d.isFinite {
                if abs(d) < 1e15, let exact = Int64(exactly: d) {
                    out.append(contentsOf: String(exact).utf8)
                } else {
                    out.append(contentsOf: "\(d)".utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)  // JSON has no NaN or infinity.
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                v.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                m.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal. Runs of bytes that need no escape are appended
    /// whole: most strings on the wire have none, and per-byte appends were most of the time.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            var runStart = 0
            for (i, b) in bytes.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
                appendEscape(b, to: &out)
                runStart = i + 1
            }
            if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
        switch b {
        case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        default:
            let hex: StaticString = "0123456789abcdef"
            let h = hex.utf8Start
            out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, h[Int(b >> 4)], h[Int(b & 0xF)]])
        }
    }

    /// Appends the decimal digits of `i` without a temporary String.
    static func writeInteger(_ i: Int64, to out: inout [UInt8]) {
        if i == 0 {
            out.append(0x30)
            return
        }
        // Negative numbers are written from their magnitude in UInt64, so Int64.min works.
        var magnitude = i < 0 ? UInt64(bitPattern: 0 &- i) : UInt64(i)
        if i < 0 { out.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes on the stack; 20 are enough
        let count = withUnsafeMutableBytes(of: &digits) { buf -> Int in
            var n = 0
            while magnitude > 0 {
                buf[31 - n] = UInt8(truncatingIfNeeded: magnitude % 10) + 0x30
                magnitude /= 10
                n += 1
            }
            return n
        }
        withUnsafeBytes(of: &digits) { buf in out.append(contentsOf: buf[(32 - count)...]) }
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText }
}
