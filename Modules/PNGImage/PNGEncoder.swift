/// Writes an `RGBImage` as a PNG file (ISO/IEC 15948): signature, `IHDR` (8-bit RGB), one `IDAT`
/// holding the zlib stream of the rows (each with filter 0), `IEND`; every chunk with its CRC-32.
enum PNGEncoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func encode(_ image: RGBImage) -> [UInt8] {
        let rowBytes = image.width * 3
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * image.height)
        for y in 0..<image.height {
            raw.append(0)  // filter type None
            raw.append(contentsOf: image.pixels[(y * rowBytes)..<((y + 1) * rowBytes)])
        }
        var out = signature
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header.append(contentsOf: [8, 2, 0, 0, 0])  // depth 8, RGB, deflate, adaptive filters, no interlace
        chunk("IHDR", header, into: &out)
        chunk("IDAT", Deflate.zlib(raw, distances: [3, rowBytes + 1]), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    private static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        out.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        out.append(contentsOf: typed)
        out.appendBigEndian(CRC32.checksum(typed))
    }
}

/// CRC-32 (ISO 3309, the polynomial 0xEDB88320 reflected) as PNG chunks carry it.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

/// A zlib stream (RFC 1950) of one deflate block with the fixed Huffman codes (RFC 1951 §3.2.6),
/// matching only at a few given distances: for an image's rows, the pixel before and the pixel
/// above, which is where flat drawings repeat. No dictionary, no hash chains: simple and enough.
enum Deflate {
    static func zlib(_ data: [UInt8], distances: [Int]) -> [UInt8] {
        var bits = BitWriter()
        bits.bytes = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, fastest (header check ok)
        bits.write(1, count: 1)  // BFINAL
        bits.write(1, count: 2)  // BTYPE 01: fixed Huffman codes
        let usable = distances.filter { $0 >= 1 && $0 <= 32768 }.sorted()
        var i = 0
        while i < data.count {
            var bestLength = 0
            var bestDistance = 0
            for d in usable where d <= i {
                var n = 0
                let limit = min(258, data.count - i)
                while n < limit, data[i + n] == data[i + n - d] { n += 1 }
                if n > bestLength {
                    bestLength = n
                    bestDistance = d
                }
            }
            if bestLength >= 3 {
                writeLength(bestLength, &bits)
                writeDistance(bestDistance, &bits)
                i += bestLength
            } else {
                writeLiteral(Int(data[i]), &bits)
                i += 1
            }
        }
        writeLiteral(256, &bits)  // end of block
        bits.flush()
        bits.bytes.appendBigEndian(adler32(data))
        return bits.bytes
    }

    /// Adler-32 (RFC 1950 §8), the zlib stream's checksum of the uncompressed data.
    static func adler32(_ data: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var i = 0
        while i < data.count {
            // 5552 bytes is the most that cannot overflow before the modulo.
            let end = min(i + 5552, data.count)
            for k in i..<end {
                a &+= UInt32(data[k])
                b &+= a
            }
            a %= 65521
            b %= 65521
            i = end
        }
        return b << 16 | a
    }

    /// A literal/length symbol in the fixed code (Huffman codes go most significant bit first).
    private static func writeLiteral(_ symbol: Int, _ bits: inout BitWriter) {
        switch symbol {
        case 0...143: bits.writeCode(0x30 + symbol, count: 8)
        case 144...255: bits.writeCode(0x190 + symbol - 144, count: 9)
        case 256...279: bits.writeCode(symbol - 256, count: 7)
        default: bits.writeCode(0xC0 + symbol - 280, count: 8)
        }
    }

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193,
        12289, 16385, 24577,
    ]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func writeLength(_ length: Int, _ bits: inout BitWriter) {
        let code = lengthBases.lastIndex { $0 <= length }!
        writeLiteral(257 + code, &bits)
        bits.write(UInt32(length - lengthBases[code]), count: lengthExtra[code])
    }

    private static func writeDistance(_ distance: Int, _ bits: inout BitWriter) {
        let code = distanceBases.lastIndex { $0 <= distance }!
        bits.writeCode(code, count: 5)
        bits.write(UInt32(distance - distanceBases[code]), count: distanceExtra[code])
    }
}

/// Bits packed into bytes least significant bit first, as deflate streams are.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt32 = 0
    private var filled = 0

    /// `count` bits of `value`, least significant first (headers, extra bits).
    mutating func write(_ value: UInt32, count: Int) {
        guard count > 0 else { return }
        buffer |= (value & ((1 << UInt32(count)) - 1)) << UInt32(filled)
        filled += count
        while filled >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            filled -= 8
        }
    }

    /// A Huffman code of `count` bits, most significant first.
    mutating func writeCode(_ code: Int, count: Int) {
        var reversed: UInt32 = 0
        for i in 0..<count where code & (1 << i) != 0 { reversed |= 1 << UInt32(count - 1 - i) }
        write(reversed, count: count)
    }

    mutating func flush() {
        if filled > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        filled = 0
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ v: UInt32) {
        append(contentsOf: [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
    }
}
