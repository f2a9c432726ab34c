/// Standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding), the encoding of binary
/// payloads inside JSON (a snapshot's PNG on the wire, docs/wire.md).
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// The 6-bit value of each ASCII byte; 0xFF for bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    /// The padded encoding of `bytes`.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = input.count - i
        if rest > 0 {
            let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(rest == 2 ? alphabet[Int(n >> 6 & 63)] : 0x3D)
            out.append(0x3D)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` encodes; nil unless it is strict padded base64: a length that is a
    /// multiple of 4, only alphabet bytes, `=` only as the last one or two, and zero unused bits.
    public static func decode(_ text: String) -> [UInt8]? {
        var result: [UInt8]?
        var text = text
        text.withUTF8 { result = decode(bytes: $0) }
        return result
    }

    private static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        var padding = 0
        if input.count > 0 && input[input.count - 1] == 0x3D { padding += 1 }
        if input.count > 1 && input[input.count - 2] == 0x3D { padding += 1 }
        var out: [UInt8] = []
        out.reserveCapacity(input.count / 4 * 3)
        var i = 0
        while i < input.count {
            let last = i + 4 == input.count
            let a = values[Int(input[i])]
            let b = values[Int(input[i + 1])]
            let c = last && padding == 2 ? 0 : values[Int(input[i + 2])]
            let d = last && padding >= 1 ? 0 : values[Int(input[i + 3])]
            guard a < 64, b < 64, c < 64, d < 64 else { return nil }
            let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            out.append(UInt8(n >> 16 & 0xFF))
            if last && padding == 2 {
                guard n & 0xFFFF == 0 else { return nil }
            } else {
                out.append(UInt8(n >> 8 & 0xFF))
                if last && padding == 1 {
                    guard n & 0xFF == 0 else { return nil }
                } else {
                    out.append(UInt8(n & 0xFF))
                }
            }
            i += 4
        }
        return out
    }
}
