/// A Bloom filter of stored events' `(app key, id)` pairs, by their `EventKeyHash`: "no" is
/// certain (the event is new: no lookup), "maybe" sends the event to an exact lookup
/// (IngestDedup.swift). Blocked: each key's bits lie in one 512-bit block (one cache line), so a
/// question or an insert touches one line of memory. 10 bits per key of `capacity`, 7 bits per
/// key: about 1% of new events are looked up while it holds at most `capacity` keys; past that
/// the share grows, and the dedup builds a larger one.
struct EventIdFilter: Sendable {
    /// Keys it is sized for.
    let capacity: Int
    /// Keys inserted (repeats counted again).
    private(set) var inserted = 0
    private var words: [UInt64]
    private let blocks: UInt64

    static let wordsPerBlock = 8

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        let blocks = max(1, (self.capacity * StoreTuning.filterBitsPerKey + 511) / 512)
        self.blocks = UInt64(blocks)
        words = Array(repeating: 0, count: blocks * Self.wordsPerBlock)
    }

    /// Bytes of memory it holds.
    var bytes: Int { words.count * 8 }

    mutating func insert(_ hash: UInt64) {
        let base = block(hash)
        var bits = hash &* 0x9E37_79B9_7F4A_7C15
        words.withUnsafeMutableBufferPointer { w in
            for _ in 0..<7 {
                let bit = Int(bits & 511)
                w[base + bit >> 6] |= 1 << UInt64(bit & 63)
                bits >>= 9
            }
        }
        inserted += 1
    }

    /// False when `hash` was certainly never inserted.
    func mayContain(_ hash: UInt64) -> Bool {
        let base = block(hash)
        var bits = hash &* 0x9E37_79B9_7F4A_7C15
        return words.withUnsafeBufferPointer { w in
            for _ in 0..<7 {
                let bit = Int(bits & 511)
                if w[base + bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
                bits >>= 9
            }
            return true
        }
    }

    /// The first word of `hash`'s block: from its high bits (the bits within the block come from
    /// a product of all of them).
    private func block(_ hash: UInt64) -> Int {
        Int(hash.multipliedFullWidth(by: blocks).high) * Self.wordsPerBlock
    }
}

/// A 64-bit hash of an event's `(app key, id)` as bytes (FNV-1a over the app key, a separator
/// no UTF-8 text holds, and the id, then a finalizer that spreads every input bit over the
/// result). Equal pairs hash equal; the dedup compares the bytes when hashes meet.
struct EventKeyHash {
    /// The state after an app key and the separator: a batch's app key is hashed once.
    let appKeyState: UInt64

    init(appKey: UnsafeRawBufferPointer) {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in appKey { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        appKeyState = (h ^ 0xFF) &* 0x0000_0100_0000_01B3
    }

    init(appKey: String) {
        var key = appKey
        self = key.withUTF8 { Self(appKey: UnsafeRawBufferPointer($0)) }
    }

    func hash(id: UnsafeRawBufferPointer) -> UInt64 {
        var h = appKeyState
        for b in id { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        // MurmurHash3's 64-bit finalizer.
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        h &*= 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 33
        return h
    }
}
