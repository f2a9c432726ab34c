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
        case .int(let i): out.append(contentsOf: String(i).utf8)
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

    /// Appends `s` as a JSON string literal.
    public static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: CustomStringConvertible {
    public var description: String { jsonText }
}
