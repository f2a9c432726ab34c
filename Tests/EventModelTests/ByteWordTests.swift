import EventModel
import Testing

/// `ByteWord`'s tests read eight bytes at once: for every byte value at every position of a word
/// (the others 0x80, which no test here matches, or a match after it), each test flags exactly
/// the words a byte-by-byte reading flags, and `firstMatch` names the first such byte.
@Suite struct ByteWordTests {
    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.enumerated().reduce(0) { w, b in w | UInt64(b.element) << (8 * UInt64(b.offset)) }
    }

    @Test func everyByteAtEveryPositionIsFlaggedExactly() {
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = [UInt8](repeating: 0x80, count: 8)
                bytes[position] = UInt8(value)
                let w = Self.word(bytes)
                for target: UInt8 in [0x0A, 0x22, 0x5C, 0x00, 0xFF] {
                    let flags = ByteWord.bytes(of: w, equalTo: target)
                    #expect((flags != 0) == (UInt8(value) == target), "\(value) at \(position), = \(target)")
                    if UInt8(value) == target { #expect(ByteWord.firstMatch(flags) == position) }
                }
                for bound: UInt8 in [0x01, 0x20, 0x80] {
                    let flags = ByteWord.bytes(of: w, below: bound)
                    #expect((flags != 0) == (UInt8(value) < bound), "\(value) at \(position), < \(bound)")
                    if UInt8(value) < bound { #expect(ByteWord.firstMatch(flags) == position) }
                }
                var ascii = [UInt8](repeating: UInt8(ascii: "x"), count: 8)
                ascii[position] = UInt8(value)
                #expect((Self.word(ascii) & ByteWord.tops != 0) == (value >= 0x80))
                // A second match after the first: the first is still the one named.
                if position < 7 {
                    bytes[7] = 0x0A
                    if value == 0x0A { #expect(ByteWord.firstMatch(ByteWord.bytes(of: Self.word(bytes), equalTo: 0x0A)) == position) }
                }
            }
        }
    }

    @Test func sameComparesEveryByteAndTheLength() {
        for count in 0...24 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            a.withUnsafeBufferPointer { x in
                a.withUnsafeBufferPointer { y in #expect(ByteWord.same(x, y)) }
                for i in 0..<count {
                    var b = a
                    b[i] ^= 0x80
                    b.withUnsafeBufferPointer { y in #expect(!ByteWord.same(x, y), "\(count) bytes, byte \(i) differs") }
                }
                (a + [0]).withUnsafeBufferPointer { y in #expect(!ByteWord.same(x, y), "\(count) bytes and one more") }
            }
        }
    }

    @Test func quotesAndControlBytesAreFlaggedExactlyInOneTest() {
        for position in 0..<8 {
            for value in 0...255 {
                for other: UInt8 in [0x80, UInt8(ascii: "x"), 0x20, 0x21, 0x23, 0xA2] {
                    var bytes = [UInt8](repeating: other, count: 8)
                    bytes[position] = UInt8(value)
                    let flags = ByteWord.quoteOrControlBytes(of: Self.word(bytes))
                    let matches = value == 0x22 || value < 0x20
                    #expect((flags != 0) == matches, "\(value) at \(position) among \(other)")
                    if matches { #expect(ByteWord.firstMatch(flags) == position) }
                }
            }
        }
    }
}
