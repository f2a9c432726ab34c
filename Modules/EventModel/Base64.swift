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
        let count = (input.count + 2) / 3 * 4
        let table = alphabet
        let out = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            input.withUnsafeBufferPointer { input in
                table.withUnsafeBufferPointer { table in
                    var i = 0
                    var o = 0
                    while i + 3 <= input.count {
                        let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = table[Int(n >> 6 & 63)]
                        out[o + 3] = table[Int(n & 63)]
                        i += 3
                        o += 4
                    }
                    let rest = input.count - i
                    if rest > 0 {
                        let n = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
                        out[o] = table[Int(n >> 18 & 63)]
                        out[o + 1] = table[Int(n >> 12 & 63)]
                        out[o + 2] = rest == 2 ? table[Int(n >> 6 & 63)] : 0x3D
                        out[o + 3] = 0x3D
                    }
                }
            }
            initialized = count
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
        guard input.count > 0 else { return [] }
        var padding = 0
        if input[input.count - 1] == 0x3D { padding += 1 }
        if input[input.count - 2] == 0x3D { padding += 1 }
        let count = input.count / 4 * 3 - padding
        var valid = true
        let out = values.withUnsafeBufferPointer { values in
            [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
                var i = 0
                var o = 0
                let whole = padding == 0 ? input.count : input.count - 4
                while i < whole {
                    let a = values[Int(input[i])], b = values[Int(input[i + 1])]
                    let c = values[Int(input[i + 2])], d = values[Int(input[i + 3])]
                    guard (a | b | c | d) & 0xC0 == 0 else {
                        valid = false
                        break
                    }
                    let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    out[o] = UInt8(truncatingIfNeeded: n >> 16)
                    out[o + 1] = UInt8(truncatingIfNeeded: n >> 8)
                    out[o + 2] = UInt8(truncatingIfNeeded: n)
                    i += 4
                    o += 3
                }
                if valid && padding > 0 {
                    // The last quantum: 2 or 3 alphabet bytes, then padding; the unused bits must be zero.
                    let a = values[Int(input[i])], b = values[Int(input[i + 1])]
                    let c = padding == 2 ? 0 : values[Int(input[i + 2])]
                    let n = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6
                    if (a | b | c) & 0xC0 != 0 || n & (padding == 2 ? 0xFFFF : 0xFF) != 0 {
                        valid = false
                    } else {
                        out[o] = UInt8(truncatingIfNeeded: n >> 16)
                        if padding == 1 { out[o + 1] = UInt8(truncatingIfNeeded: n >> 8) }
                    }
                }
                // Filled or not, every byte is initialized (an invalid result is thrown away).
                if !valid { for k in 0..<count { out[k] = 0 } }
                initialized = count
            }
        }
        return valid ? out : nil
    }
}
