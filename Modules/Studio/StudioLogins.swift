import Synchronization

/// The studio's logins: random ids (the cookie's value) with the time each ends.
///
/// Sessions live in this process only: a restarted collector asks for the token again. They end
/// `lifetime` after login (absolute, not sliding, so a stolen cookie is worth a bounded time),
/// on logout, or when `capacity` newer ones pushed them out.
public final class StudioLogins: Sendable {
    public let lifetime: Int64
    public let capacity: Int
    private let clock: @Sendable () -> Int64
    /// id → when it ends (ms since the epoch).
    private let logins = Mutex<[String: Int64]>([:])

    /// `lifetime` in ms (default 12 hours).
    public init(lifetime: Int64 = 12 * 3_600_000, capacity: Int = 1000, clock: @escaping @Sendable () -> Int64) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.clock = clock
    }

    /// A new login; returns its id (64 hex digits from the system's random generator) and end.
    public func start() -> (id: String, expires: Int64) {
        var generator = SystemRandomNumberGenerator()
        var id = ""
        for _ in 0..<4 {
            let word = generator.next() as UInt64
            let hex = String(word, radix: 16)
            id += String(repeating: "0", count: 16 - hex.count) + hex
        }
        let now = clock()
        let expires = now + lifetime
        logins.withLock { table in
            table = table.filter { $0.value > now }
            if table.count >= capacity, let oldest = table.min(by: { $0.value < $1.value })?.key { table[oldest] = nil }
            table[id] = expires
        }
        return (id, expires)
    }

    /// Whether `id` names a login that has not ended.
    public func isValid(_ id: String) -> Bool {
        let now = clock()
        return logins.withLock { table in
            guard let expires = table[id] else { return false }
            if expires <= now {
                table[id] = nil
                return false
            }
            return true
        }
    }

    /// Ends `id` (logout).
    public func end(_ id: String) {
        _ = logins.withLock { $0.removeValue(forKey: id) }
    }
}
