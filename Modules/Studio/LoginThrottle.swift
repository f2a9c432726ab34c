import Synchronization

/// Bounds wrong admin tokens (a login form's or a bearer token's): after `limit` of them within
/// `window` ms, the whole studio checks no token until the oldest leaves the window (429), so
/// guessing the token over HTTP is slow. Sessions already logged in are not affected.
final class LoginThrottle: Sendable {
    let limit: Int
    let window: Int64
    private let failures = Mutex<[Int64]>([])

    init(limit: Int = 10, window: Int64 = 60_000) {
        self.limit = limit
        self.window = window
    }

    /// Whether another attempt may be checked now.
    func allows(at now: Int64) -> Bool {
        failures.withLock { times in
            times.removeAll { $0 <= now - window }
            return times.count < limit
        }
    }

    func failed(at now: Int64) {
        failures.withLock { $0.append(now) }
    }
}
