/// MD5 (RFC 1321), one-shot and streaming. Used for viewIds, not for security.
public struct MD5: Sendable {
    private var state: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476)
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    public init() {
        buffer.reserveCapacity(64)
    }

    /// Feeds more bytes; any split of the input gives the same digest.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        length &+= UInt64(bytes.count)
        var input = bytes[...]
        if !buffer.isEmpty {
            let need = 64 - buffer.count
            buffer.append(contentsOf: input.prefix(need))
            input = input.dropFirst(need)
            if buffer.count < 64 { return }
            buffer.withUnsafeBufferPointer { MD5.compress(&state, $0.baseAddress!) }
            buffer.removeAll(keepingCapacity: true)
        }
        let whole = input.count / 64 * 64
        if whole > 0 {
            let handled = input.withContiguousStorageIfAvailable { (p: UnsafeBufferPointer<UInt8>) -> Bool in
                var o = 0
                while o < whole {
                    MD5.compress(&state, p.baseAddress! + o)
                    o += 64
                }
                return true
            }
            if handled == nil {
                let copy = Array(input.prefix(whole))
                copy.withUnsafeBufferPointer { p in
                    var o = 0
                    while o < whole {
                        MD5.compress(&state, p.baseAddress! + o)
                        o += 64
                    }
                }
            }
            input = input.dropFirst(whole)
        }
        buffer.append(contentsOf: input)
    }

    /// The 16-byte digest. The hasher may not be used afterwards.
    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let rem = Int((length + 1) % 64)
        pad.append(contentsOf: repeatElement(0, count: rem <= 56 ? 56 - rem : 120 - rem))
        for i in 0..<8 { pad.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }
        let saved = length
        update(pad)
        length = saved
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for w in [state.0, state.1, state.2, state.3] {
            for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: w >> (8 * UInt32(i)))) }
        }
        return out
    }

    /// The digest of `bytes`.
    public static func digest(of bytes: some Collection<UInt8>) -> [UInt8] {
        var h = MD5()
        h.update(bytes)
        return h.finalize()
    }

    /// The digest of `bytes` in lowercase hex.
    public static func hexDigest(of bytes: some Collection<UInt8>) -> String {
        hex(digest(of: bytes))
    }

    /// Lowercase hex of a digest.
    public static func hex(_ digest: [UInt8]) -> String {
        let table = Array("0123456789abcdef".utf8)
        var chars = [UInt8]()
        chars.reserveCapacity(digest.count * 2)
        for b in digest {
            chars.append(table[Int(b >> 4)])
            chars.append(table[Int(b & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }

    private static let s: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    // K[i] = floor(abs(sin(i + 1)) * 2^32), RFC 1321 §3.4.
    private static let k: [UInt32] = [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]

    /// One 64-byte block.
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32), _ p: UnsafePointer<UInt8>) {
        var m = [UInt32](repeating: 0, count: 16)
        for i in 0..<16 {
            m[i] = UInt32(p[4 * i]) | UInt32(p[4 * i + 1]) << 8 | UInt32(p[4 * i + 2]) << 16 | UInt32(p[4 * i + 3]) << 24
        }
        var a = state.0, b = state.1, c = state.2, d = state.3
        for i in 0..<64 {
            var f: UInt32
            let g: Int
            switch i {
            case 0..<16: f = (b & c) | (~b & d); g = i
            case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
            case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
            default: f = c ^ (b | ~d); g = (7 * i) % 16
            }
            f = f &+ a &+ k[i] &+ m[g]
            a = d
            d = c
            c = b
            b = b &+ (f << s[i] | f >> (32 - s[i]))
        }
        state.0 &+= a
        state.1 &+= b
        state.2 &+= c
        state.3 &+= d
    }
}
