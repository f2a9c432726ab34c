/// A value per runtime class met (its public name, its kinds in a class list), keyed by the
/// class's address: classes live as long as the process, so a table only grows, by the classes a
/// process's views have.
///
/// Open addressing with a multiplicative hash of the address: every node of every path asks for
/// its class's name, and a `Dictionary`'s hashing of the key cost several times this lookup.
package struct RuntimeClassTable<Value> {
    private var keys = [UInt](repeating: 0, count: 64)
    private var values: [Value?] = Array(repeating: nil, count: 64)
    package private(set) var count = 0

    package init() {}

    package subscript(runtimeClass: UInt) -> Value? {
        get {
            var i = slot(runtimeClass)
            while keys[i] != 0 {
                if keys[i] == runtimeClass { return values[i] }
                i = (i + 1) & (keys.count - 1)
            }
            return nil
        }
        set {
            guard let newValue, runtimeClass != 0 else { return }
            if (count + 1) * 2 > keys.count { grow() }
            var i = slot(runtimeClass)
            while keys[i] != 0, keys[i] != runtimeClass { i = (i + 1) & (keys.count - 1) }
            if keys[i] == 0 { count += 1 }
            keys[i] = runtimeClass
            values[i] = newValue
        }
    }

    /// Where `key`'s probe starts: the high bits of its product with 2^64 / φ, which spread
    /// addresses that differ only in their low bits (aligned allocations) over the table.
    private func slot(_ key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - keys.count.trailingZeroBitCount))
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        keys = [UInt](repeating: 0, count: keys.count * 2)
        values = Array(repeating: nil, count: keys.count)
        count = 0
        for (key, value) in old { self[key] = value }
    }
}
