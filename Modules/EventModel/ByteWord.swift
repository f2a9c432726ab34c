/// Eight bytes read as one `UInt64` (an unaligned load, the first byte lowest), tested all at
/// once: what the scans of a frame's payload (`ATLPFrame.scan`) and of a JSON string
/// (`JSONParser.parseStringInPlace`) use to pass over the bytes no rule stops at.
///
/// Each test sets the top bit of a byte of its result where that byte matches, exactly for the
/// lowest matching byte (a borrow can flag bytes above it, never below), so a result is nonzero
/// exactly when some byte matches, and `firstMatch` is that byte's index.
package enum ByteWord {
    /// One in each byte.
    @inlinable package static var ones: UInt64 { 0x0101_0101_0101_0101 }
    /// Each byte's top bit: set in a word exactly when one of its bytes is not ASCII.
    @inlinable package static var tops: UInt64 { 0x8080_8080_8080_8080 }

    /// The bytes of `word` equal to `byte`.
    @inlinable @inline(__always)
    package static func bytes(of word: UInt64, equalTo byte: UInt8) -> UInt64 {
        bytes(of: word ^ (ones &* UInt64(byte)), below: 1)
    }

    /// The bytes of `word` below `bound` (at most 0x80).
    @inlinable @inline(__always)
    package static func bytes(of word: UInt64, below bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & tops
    }

    /// The bytes of `word` that are a quote (0x22) or a control byte (below 0x20), in one test:
    /// xor with 0x02 turns the quote into 0x20, keeps each control byte below 0x20, and turns
    /// no other byte into one below 0x21.
    @inlinable @inline(__always)
    package static func quoteOrControlBytes(of word: UInt64) -> UInt64 {
        bytes(of: word ^ (ones &* 0x02), below: 0x21)
    }

    /// The `count` lowest bytes all ones (`count` below 8): a mask for the bytes before a match.
    @inlinable @inline(__always)
    package static func lowBytes(_ count: Int) -> UInt64 { (1 &<< (UInt64(count) &* 8)) &- 1 }

    /// The index of the lowest byte a test flagged (`flags` nonzero).
    @inlinable @inline(__always)
    package static func firstMatch(_ flags: UInt64) -> Int { flags.trailingZeroBitCount &>> 3 }

    /// Whether `a` and `b` are the same bytes, compared eight at a time.
    @inlinable
    package static func same(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }
        var i = 0
        while i + 8 <= a.count {
            if UnsafeRawPointer(x + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(y + i).loadUnaligned(as: UInt64.self) {
                return false
            }
            i += 8
        }
        while i < a.count {
            if x[i] != y[i] { return false }
            i += 1
        }
        return true
    }
}
