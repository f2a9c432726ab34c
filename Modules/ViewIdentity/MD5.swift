/// MD5 (RFC 1321), one-shot and streaming. Used for viewIds and file checks, not for security.
///
/// Feed bytes with `update` in pieces of any size; any split of the same input gives the same
/// digest. `finalize()` does not consume the hasher: it pads a copy, so more bytes may follow.
///
/// The hot path keeps the partial block in an inline 64-byte tuple (no heap), compresses whole
/// blocks straight from the caller's memory, and runs the 64 steps unrolled with the state in
/// local variables.
public struct MD5: Sendable {
    /// The four chaining words A, B, C, D.
    private var a: UInt32 = 0x6745_2301
    private var b: UInt32 = 0xefcd_ab89
    private var c: UInt32 = 0x98ba_dcfe
    private var d: UInt32 = 0x1032_5476
    /// The partial block, `buffered` bytes long; a tuple so that it lives inside the struct.
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var buffered: Int = 0
    /// Bytes fed so far; RFC 1321 keeps the length modulo 2^64.
    private var length: UInt64 = 0

    /// The size of one MD5 block in bytes.
    public static let blockSize = 64
    /// The size of a digest in bytes.
    public static let digestSize = 16

    public init() {}

    // MARK: Feeding bytes

    /// Feeds the bytes in `bytes`; the fast path every other `update` ends in.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var p = bytes.baseAddress, bytes.count > 0 else { return }
        var n = bytes.count
        length &+= UInt64(n)
        if buffered > 0 {
            let take = Swift.min(64 - buffered, n)
            let at = buffered
            withUnsafeMutableBytes(of: &block) { dst in
                (dst.baseAddress! + at).copyMemory(from: p, byteCount: take)
            }
            buffered += take
            p += take
            n -= take
            if buffered < 64 { return }
            let blockCopy = block
            withUnsafeBytes(of: blockCopy) { compress($0.baseAddress!, blocks: 1) }
            buffered = 0
        }
        let whole = n >> 6
        if whole > 0 {
            compress(p, blocks: whole)
            p += whole << 6
            n -= whole << 6
        }
        if n > 0 {
            withUnsafeMutableBytes(of: &block) { dst in
                dst.baseAddress!.copyMemory(from: p, byteCount: n)
            }
            buffered = n
        }
    }

    /// Feeds `bytes`; contiguous collections (arrays, `Data`, native strings' UTF-8) take the fast path.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done != nil { return }
        // A collection with no contiguous storage: copy through a stack-sized chunk.
        var chunk = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var iterator = bytes.makeIterator()
        while true {
            let filled = withUnsafeMutableBytes(of: &chunk) { dst -> Int in
                var k = 0
                while k < 64, let byte = iterator.next() {
                    dst[k] = byte
                    k += 1
                }
                return k
            }
            if filled == 0 { return }
            withUnsafeBytes(of: chunk) { update(UnsafeRawBufferPointer(rebasing: $0[0..<filled])) }
            if filled < 64 { return }
        }
    }

    /// Feeds the UTF-8 bytes of `text`.
    public mutating func update(utf8 text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    // MARK: Digests

    /// The 16-byte digest of everything fed so far. The hasher is unchanged and may be fed more.
    public func finalize() -> [UInt8] {
        let words = finalWords()
        return [UInt8](unsafeUninitializedCapacity: 16) { out, count in
            MD5.store(words, into: UnsafeMutableRawPointer(out.baseAddress!))
            count = 16
        }
    }

    /// Writes the 16-byte digest of everything fed so far into `buffer` (at least 16 bytes), without allocating.
    public func finalize(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= 16, "MD5.finalize(into:) needs 16 bytes, got \(buffer.count)")
        MD5.store(finalWords(), into: buffer.baseAddress!)
    }

    /// The digest of everything fed so far in lowercase hexadecimal (32 characters).
    public var hexDigest: String {
        MD5.hex(words: finalWords())
    }

    /// The digest of `bytes`.
    public static func digest(of bytes: some Collection<UInt8>) -> [UInt8] {
        var h = MD5()
        h.update(bytes)
        return h.finalize()
    }

    /// The digest of `bytes` in lowercase hex.
    public static func hexDigest(of bytes: some Collection<UInt8>) -> String {
        var h = MD5()
        h.update(bytes)
        return h.hexDigest
    }

    /// The digest of the UTF-8 bytes of `text` in lowercase hex.
    public static func hexDigest(utf8 text: String) -> String {
        var h = MD5()
        h.update(utf8: text)
        return h.hexDigest
    }

    /// Lowercase hex of a digest (or of any bytes).
    public static func hex(_ digest: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: digest.count * 2) { out in
            var o = 0
            for byte in digest {
                out[o] = hexDigits(byte >> 4)
                out[o + 1] = hexDigits(byte & 0x0F)
                o += 2
            }
            return o
        }
    }

    // MARK: Internals

    /// Pads a copy of the state (RFC 1321 §3.1–3.2) and returns the final A, B, C, D.
    private func finalWords() -> (UInt32, UInt32, UInt32, UInt32) {
        var h = self
        let bitLength = length &<< 3
        var tail = h.block
        let used = h.buffered
        withUnsafeMutableBytes(of: &tail) { t in
            t[used] = 0x80
            for i in (used + 1)..<64 { t[i] = 0 }
        }
        if used >= 56 {
            withUnsafeBytes(of: tail) { h.compress($0.baseAddress!, blocks: 1) }
            tail = (0, 0, 0, 0, 0, 0, 0, 0)
        }
        tail.7 = bitLength.littleEndian
        withUnsafeBytes(of: tail) { h.compress($0.baseAddress!, blocks: 1) }
        return (h.a, h.b, h.c, h.d)
    }

    private static func store(_ w: (UInt32, UInt32, UInt32, UInt32), into p: UnsafeMutableRawPointer) {
        p.storeBytes(of: w.0.littleEndian, toByteOffset: 0, as: UInt32.self)
        p.storeBytes(of: w.1.littleEndian, toByteOffset: 4, as: UInt32.self)
        p.storeBytes(of: w.2.littleEndian, toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: w.3.littleEndian, toByteOffset: 12, as: UInt32.self)
    }

    private static func hex(words w: (UInt32, UInt32, UInt32, UInt32)) -> String {
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { store(w, into: $0.baseAddress!) }
        return withUnsafeBytes(of: bytes) { raw in
            String(unsafeUninitializedCapacity: 32) { out in
                for i in 0..<16 {
                    out[2 * i] = hexDigits(raw[i] >> 4)
                    out[2 * i + 1] = hexDigits(raw[i] & 0x0F)
                }
                return 32
            }
        }
    }

    @inline(__always)
    private static func hexDigits(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble  // '0'… and 'a' - 10
    }

    /// Runs the compression function over `blocks` consecutive 64-byte blocks at `p`.
    private mutating func compress(_ p: UnsafeRawPointer, blocks: Int) {
        md5RoundConstants.withUnsafeBufferPointer { k in
            compress(p, blocks: blocks, constants: k.baseAddress!)
        }
    }

    /// The 64 steps of RFC 1321 §3.4, unrolled, with the constants T[1…64] read from `k`.
    private mutating func compress(_ p: UnsafeRawPointer, blocks: Int, constants k: UnsafePointer<UInt32>) {
        var a = self.a, b = self.b, c = self.c, d = self.d
        var p = p
        for _ in 0..<blocks {
            let x0 = word(p, 0), x1 = word(p, 1), x2 = word(p, 2), x3 = word(p, 3)
            let x4 = word(p, 4), x5 = word(p, 5), x6 = word(p, 6), x7 = word(p, 7)
            let x8 = word(p, 8), x9 = word(p, 9), x10 = word(p, 10), x11 = word(p, 11)
            let x12 = word(p, 12), x13 = word(p, 13), x14 = word(p, 14), x15 = word(p, 15)
            let aa = a, bb = b, cc = c, dd = d

            // Round 1: F(x, y, z) = (x & y) | (~x & z), written as z ^ (x & (y ^ z)).
            ff(&a, b, c, d, x0, 7, k[0]); ff(&d, a, b, c, x1, 12, k[1])
            ff(&c, d, a, b, x2, 17, k[2]); ff(&b, c, d, a, x3, 22, k[3])
            ff(&a, b, c, d, x4, 7, k[4]); ff(&d, a, b, c, x5, 12, k[5])
            ff(&c, d, a, b, x6, 17, k[6]); ff(&b, c, d, a, x7, 22, k[7])
            ff(&a, b, c, d, x8, 7, k[8]); ff(&d, a, b, c, x9, 12, k[9])
            ff(&c, d, a, b, x10, 17, k[10]); ff(&b, c, d, a, x11, 22, k[11])
            ff(&a, b, c, d, x12, 7, k[12]); ff(&d, a, b, c, x13, 12, k[13])
            ff(&c, d, a, b, x14, 17, k[14]); ff(&b, c, d, a, x15, 22, k[15])

            // Round 2: G(x, y, z) = (x & z) | (y & ~z); the two halves never share a bit, so they
            // are added, and (y & ~z), which does not wait for the newest word x, is added first.
            gg(&a, b, c, d, x1, 5, k[16]); gg(&d, a, b, c, x6, 9, k[17])
            gg(&c, d, a, b, x11, 14, k[18]); gg(&b, c, d, a, x0, 20, k[19])
            gg(&a, b, c, d, x5, 5, k[20]); gg(&d, a, b, c, x10, 9, k[21])
            gg(&c, d, a, b, x15, 14, k[22]); gg(&b, c, d, a, x4, 20, k[23])
            gg(&a, b, c, d, x9, 5, k[24]); gg(&d, a, b, c, x14, 9, k[25])
            gg(&c, d, a, b, x3, 14, k[26]); gg(&b, c, d, a, x8, 20, k[27])
            gg(&a, b, c, d, x13, 5, k[28]); gg(&d, a, b, c, x2, 9, k[29])
            gg(&c, d, a, b, x7, 14, k[30]); gg(&b, c, d, a, x12, 20, k[31])

            // Round 3: H(x, y, z) = x ^ y ^ z.
            hh(&a, b, c, d, x5, 4, k[32]); hh(&d, a, b, c, x8, 11, k[33])
            hh(&c, d, a, b, x11, 16, k[34]); hh(&b, c, d, a, x14, 23, k[35])
            hh(&a, b, c, d, x1, 4, k[36]); hh(&d, a, b, c, x4, 11, k[37])
            hh(&c, d, a, b, x7, 16, k[38]); hh(&b, c, d, a, x10, 23, k[39])
            hh(&a, b, c, d, x13, 4, k[40]); hh(&d, a, b, c, x0, 11, k[41])
            hh(&c, d, a, b, x3, 16, k[42]); hh(&b, c, d, a, x6, 23, k[43])
            hh(&a, b, c, d, x9, 4, k[44]); hh(&d, a, b, c, x12, 11, k[45])
            hh(&c, d, a, b, x15, 16, k[46]); hh(&b, c, d, a, x2, 23, k[47])

            // Round 4: I(x, y, z) = y ^ (x | ~z).
            ii(&a, b, c, d, x0, 6, k[48]); ii(&d, a, b, c, x7, 10, k[49])
            ii(&c, d, a, b, x14, 15, k[50]); ii(&b, c, d, a, x5, 21, k[51])
            ii(&a, b, c, d, x12, 6, k[52]); ii(&d, a, b, c, x3, 10, k[53])
            ii(&c, d, a, b, x10, 15, k[54]); ii(&b, c, d, a, x1, 21, k[55])
            ii(&a, b, c, d, x8, 6, k[56]); ii(&d, a, b, c, x15, 10, k[57])
            ii(&c, d, a, b, x6, 15, k[58]); ii(&b, c, d, a, x13, 21, k[59])
            ii(&a, b, c, d, x4, 6, k[60]); ii(&d, a, b, c, x11, 10, k[61])
            ii(&c, d, a, b, x2, 15, k[62]); ii(&b, c, d, a, x9, 21, k[63])

            a = a &+ aa
            b = b &+ bb
            c = c &+ cc
            d = d &+ dd
            p += 64
        }
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }
}

// Each step adds the message word and constant to `a` before the round function, so that only
// one addition waits on the round function of the newest word (the critical path); see
// `md5RoundConstants` for why the constants come from memory.

/// The `i`th little-endian 32-bit word of the block at `p` (RFC 1321 §3.4 reads words low byte first).
@inline(__always)
private func word(_ p: UnsafeRawPointer, _ i: Int) -> UInt32 {
    UInt32(littleEndian: p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
}

@inline(__always)
private func rotl(_ x: UInt32, _ s: UInt32) -> UInt32 {
    (x &<< s) | (x &>> (32 &- s))
}

@inline(__always)
private func ff(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ s: UInt32, _ t: UInt32) {
    a = rotl((a &+ x &+ t) &+ (d ^ (b & (c ^ d))), s) &+ b
}

@inline(__always)
private func gg(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ s: UInt32, _ t: UInt32) {
    a = rotl((a &+ x &+ t &+ (c & ~d)) &+ (b & d), s) &+ b
}

@inline(__always)
private func hh(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ s: UInt32, _ t: UInt32) {
    a = rotl((a &+ x &+ t) &+ (b ^ (c ^ d)), s) &+ b
}

@inline(__always)
private func ii(_ a: inout UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ x: UInt32, _ s: UInt32, _ t: UInt32) {
    a = rotl((a &+ x &+ t) &+ (c ^ (b | ~d)), s) &+ b
}

/// T[1…64] = floor(abs(sin(i)) · 2^32) (RFC 1321 §3.4), in step order.
///
/// Read from memory on purpose: written as immediates, LLVM reassociates each step's sum so
/// that the constant is added after the round function, one more addition on the chain every
/// step waits on (md5-bench, docs/performance.md). The `@inline(never)` initializer keeps the
/// values out of the optimizer's sight.
private let md5RoundConstants: [UInt32] = makeRoundConstants()

@inline(never)
private func makeRoundConstants() -> [UInt32] {
    [
        0xd76a_a478, 0xe8c7_b756, 0x2420_70db, 0xc1bd_ceee, 0xf57c_0faf, 0x4787_c62a, 0xa830_4613, 0xfd46_9501,
        0x6980_98d8, 0x8b44_f7af, 0xffff_5bb1, 0x895c_d7be, 0x6b90_1122, 0xfd98_7193, 0xa679_438e, 0x49b4_0821,
        0xf61e_2562, 0xc040_b340, 0x265e_5a51, 0xe9b6_c7aa, 0xd62f_105d, 0x0244_1453, 0xd8a1_e681, 0xe7d3_fbc8,
        0x21e1_cde6, 0xc337_07d6, 0xf4d5_0d87, 0x455a_14ed, 0xa9e3_e905, 0xfcef_a3f8, 0x676f_02d9, 0x8d2a_4c8a,
        0xfffa_3942, 0x8771_f681, 0x6d9d_6122, 0xfde5_380c, 0xa4be_ea44, 0x4bde_cfa9, 0xf6bb_4b60, 0xbebf_bc70,
        0x289b_7ec6, 0xeaa1_27fa, 0xd4ef_3085, 0x0488_1d05, 0xd9d4_d039, 0xe6db_99e5, 0x1fa2_7cf8, 0xc4ac_5665,
        0xf429_2244, 0x432a_ff97, 0xab94_23a7, 0xfc93_a039, 0x655b_59c3, 0x8f0c_cc92, 0xffef_f47d, 0x8584_5dd1,
        0x6fa8_7e4f, 0xfe2c_e6e0, 0xa301_4314, 0x4e08_11a1, 0xf753_7e82, 0xbd3a_f235, 0x2ad7_d2bb, 0xeb86_d391,
    ]
}
