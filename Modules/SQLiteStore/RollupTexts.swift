import Foundation

/// One text of a chunk (`RollupTexts`) and its number there: equal texts, equal numbers, so the
/// chunk's groupings key on numbers instead of hashing texts.
struct RollupText {
    let string: String
    let id: Int32
}

/// The texts of one chunk of events the rollup workers read (`RollupEvent.read`), each distinct
/// one made into a `String` once and numbered from 0: a chunk repeats the same app key,
/// version, type, name, page, path and ids over and over, and making (checking the UTF-8 of,
/// allocating, later freeing) a string per column of every event, then hashing each text again
/// in every table's grouping, would cost more than the tables' statements.
///
/// An open-addressing table (at most half full) over a hash of the bytes with a random seed
/// per table (per chunk), so texts cannot be chosen ahead to collide. Every text is what
/// `String(decoding:as:)` makes of its bytes; bytes that are not UTF-8 (repaired, so other
/// bytes may give the same text) take the number of their repaired text's bytes.
struct RollupTexts {
    private struct Slot {
        var hash: UInt64 = 0
        var text: RollupText?
    }
    private var slots: [Slot]
    private var mask: Int
    /// Texts numbered so far: the next one's number.
    private(set) var count = 0
    private let seed = UInt64.random(in: .min ... .max)

    init() {
        slots = Array(repeating: Slot(), count: 1024)
        mask = slots.count - 1
    }

    /// The text of `bytes` (UTF-8), nil for none (an SQL NULL).
    mutating func text(_ bytes: UnsafeRawBufferPointer?) -> RollupText? {
        guard let bytes else { return nil }
        let h = Self.hash(bytes, seed)
        var i = Int(truncatingIfNeeded: h) & mask
        while let t = slots[i].text {
            if slots[i].hash == h, Self.equal(t.string, bytes) { return t }
            i = (i + 1) & mask
        }
        var made = String(decoding: bytes, as: UTF8.self)
        guard Self.equal(made, bytes) else { return made.withUTF8 { text(UnsafeRawBufferPointer($0)) } }
        let t = RollupText(string: made, id: Int32(count))
        slots[i] = Slot(hash: h, text: t)
        count += 1
        if count * 2 > slots.count { grow() }
        return t
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        for s in old where s.text != nil {
            var i = Int(truncatingIfNeeded: s.hash) & mask
            while slots[i].text != nil { i = (i + 1) & mask }
            slots[i] = s
        }
    }

    private static func equal(_ text: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        return text.utf8.withContiguousStorageIfAvailable { t in
            t.isEmpty || memcmp(t.baseAddress!, bytes.baseAddress!, t.count) == 0
        } ?? text.utf8.elementsEqual(bytes)
    }

    /// 8 bytes at a time, each word mixed in (SplitMix64's finalizer).
    private static func hash(_ b: UnsafeRawBufferPointer, _ seed: UInt64) -> UInt64 {
        var h = seed ^ UInt64(b.count)
        var i = 0
        while i + 8 <= b.count {
            h = mix(h ^ b.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < b.count {
            tail |= UInt64(b[i]) << shift
            shift += 8
            i += 1
        }
        return mix(h ^ tail)
    }

    @inline(__always)
    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
