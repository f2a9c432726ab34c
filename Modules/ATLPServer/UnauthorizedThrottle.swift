/// Slows down token guessing: after a failed authentication (`unauthorized`, or `forbidden` to a
/// `PUBLISH`), the next `HELLO` from the same IP address is answered only once a delay has
/// passed, a delay that doubles with each further failure (up to a cap). Parallel connections
/// from the address pass one per delay. An address is forgotten `forgetAfter` after its last
/// failure, or when a `HELLO` from it is accepted with a token that proved something
/// (`HelloDecision.accept`'s `authenticated`). Owned by the I/O thread.
struct UnauthorizedThrottle {
    private struct Entry {
        var failures: Int
        var nextAllowed: ContinuousClock.Instant
        var lastFailure: ContinuousClock.Instant
    }

    let baseDelay: Duration
    let maxDelay: Duration
    static let forgetAfter = Duration.seconds(600)
    /// Addresses remembered at most; beyond, the one whose last failure is oldest is forgotten.
    static let maxAddresses = 4096
    private var entries: [String: Entry] = [:]

    init(baseDelay: Duration, maxDelay: Duration) {
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait after `failures` failures in a row.
    func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return min(baseDelay * (1 << min(failures - 1, 30)), maxDelay)
    }

    /// True when a `HELLO` from `host` may be answered now; it then takes the address's slot, so
    /// the next one waits a delay again.
    mutating func admit(_ host: String, now: ContinuousClock.Instant) -> Bool {
        guard var entry = entries[host] else { return true }
        guard now >= entry.nextAllowed else { return false }
        entry.nextAllowed = now + delay(afterFailures: entry.failures)
        entries[host] = entry
        return true
    }

    /// A request from `host` failed authentication (`Outcome.failedAuthentication`).
    mutating func failed(_ host: String, now: ContinuousClock.Instant) {
        var entry = entries[host] ?? Entry(failures: 0, nextAllowed: now, lastFailure: now)
        entry.failures += 1
        entry.lastFailure = now
        entry.nextAllowed = max(entry.nextAllowed, now + delay(afterFailures: entry.failures))
        entries[host] = entry
        if entries.count > Self.maxAddresses, let oldest = entries.min(by: { $0.value.lastFailure < $1.value.lastFailure }) {
            entries[oldest.key] = nil
        }
    }

    /// A `HELLO` from `host` was accepted with a token that proved something.
    mutating func succeeded(_ host: String) {
        if !entries.isEmpty { entries[host] = nil }
    }

    /// Drops the addresses whose last failure is older than `forgetAfter`.
    mutating func forgetOld(now: ContinuousClock.Instant) {
        if !entries.isEmpty { entries = entries.filter { now - $0.value.lastFailure < Self.forgetAfter } }
    }
}
