import Synchronization
import ViewIdentity

/// Event ids unique per app key: a random prefix for the process, then a counter (`3f9c…-17`).
public final class EventIDGenerator: Sendable {
    public let prefix: String
    private let counter = Atomic<UInt64>(0)

    /// Ids `prefix-1`, `prefix-2`…; the default prefix is 16 random hexadecimal digits.
    public init(prefix: String? = nil) {
        if let prefix {
            self.prefix = prefix
        } else {
            var rng = SystemRandomNumberGenerator()
            let n = rng.next() as UInt64
            let hex = String(n, radix: 16)
            self.prefix = String(repeating: "0", count: 16 - hex.count) + hex
        }
    }

    /// The next id.
    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        // Written into a string of the exact length: an id is made for every event.
        let number = Int(truncatingIfNeeded: n)
        return String(unsafeUninitializedCapacity: prefix.utf8.count + 1 + decimalLength(of: number)) { buffer in
            var w = ByteWriter(buffer)
            w.string(prefix)
            w.byte(UInt8(ascii: "-"))
            w.number(number)
            return w.offset
        }
    }
}
