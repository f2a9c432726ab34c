import Synchronization

/// Slows down guessing the admin token over HTTP (a login form's or a bearer token's), per IP
/// address as ATLP's `HELLO` throttle does: after a wrong token, the next token from the same
/// address is checked only once a delay has passed, a delay that doubles with each further wrong
/// one (`baseDelay` up to `maxDelay`); a token sent earlier is refused unchecked (429, with the
/// wait). A right token clears its address; an address is forgotten `forgetAfter` after its last
/// wrong token.
///
/// The global ceiling: once `globalLimit` wrong tokens arrived within `window` from all
/// addresses together, an address that sent a wrong one within `window` gets no further check
/// until that one is `window` old. An address with no wrong token on record is always checked,
/// so no amount of guessing elsewhere locks a right token out; logins already open are never
/// affected.
final class LoginThrottle: Sendable {
    private struct Entry {
        var failures: Int
        var nextAllowed: Int64
        var lastFailure: Int64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// When the wrong tokens of the last `window` arrived, oldest first (at most `globalLimit`).
        var recent: [Int64] = []
    }

    let baseDelay: Int64
    let maxDelay: Int64
    let globalLimit: Int
    let window: Int64
    static let forgetAfter: Int64 = 600_000
    /// Addresses remembered at most; beyond, the one whose last wrong token is oldest is forgotten.
    static let maxAddresses = 4096
    private let state = Mutex(State())

    /// Times in ms: 250 ms doubling to 8 s per address; 100 wrong tokens a minute in all.
    init(baseDelay: Int64 = 250, maxDelay: Int64 = 8_000, globalLimit: Int = 100, window: Int64 = 60_000) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.globalLimit = globalLimit
        self.window = window
    }

    /// The wait after `failures` wrong tokens in a row, ms.
    func delay(afterFailures failures: Int) -> Int64 {
        guard failures > 0 else { return 0 }
        return min(baseDelay << Int64(min(failures - 1, 30)), maxDelay)
    }

    /// Nil when a token from `address` may be checked now (it then takes the address's turn, so
    /// a parallel one waits); otherwise how many ms to wait.
    func admit(_ address: String, at now: Int64) -> Int64? {
        state.withLock { s in
            s.recent.removeAll { $0 <= now - window }
            guard var entry = s.entries[address] else { return nil }
            if now - entry.lastFailure >= Self.forgetAfter {
                s.entries[address] = nil
                return nil
            }
            if now < entry.nextAllowed { return entry.nextAllowed - now }
            if s.recent.count >= globalLimit, entry.lastFailure > now - window { return entry.lastFailure + window - now }
            entry.nextAllowed = now + delay(afterFailures: entry.failures)
            s.entries[address] = entry
            return nil
        }
    }

    /// A token from `address` was wrong.
    func failed(_ address: String, at now: Int64) {
        state.withLock { s in
            var entry = s.entries[address] ?? Entry(failures: 0, nextAllowed: now, lastFailure: now)
            entry.failures += 1
            entry.lastFailure = now
            entry.nextAllowed = max(entry.nextAllowed, now + delay(afterFailures: entry.failures))
            s.entries[address] = entry
            s.recent.append(now)
            if s.recent.count > globalLimit { s.recent.removeFirst(s.recent.count - globalLimit) }
            if s.entries.count > Self.maxAddresses, let oldest = s.entries.min(by: { $0.value.lastFailure < $1.value.lastFailure }) {
                s.entries[oldest.key] = nil
            }
        }
    }

    /// A token from `address` was the admin token.
    func succeeded(_ address: String) {
        _ = state.withLock { $0.entries.removeValue(forKey: address) }
    }
}
