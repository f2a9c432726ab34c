import SystemCalls

/// Reconnect delays: exponential, capped, with jitter so a fleet of agents that lost the
/// same collector does not come back in lockstep. `random` is injectable for tests.
public struct Backoff: Sendable {
    public var initial: Duration
    public var maximum: Duration
    public var multiplier: Double
    /// The share of each delay that is random: 0.5 means between 50 % and 100 % of it.
    public var jitter: Double
    /// A number in [0, 1); defaults to the system generator.
    public var random: @Sendable () -> Double

    public init(
        initial: Duration = .milliseconds(100), maximum: Duration = .seconds(30), multiplier: Double = 2,
        jitter: Double = 0.5, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.initial = initial
        self.maximum = maximum
        self.multiplier = multiplier
        self.jitter = min(1, max(0, jitter))
        self.random = random
    }

    /// The wait before attempt `failures + 1`, after `failures` failed ones in a row (≥ 1).
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let base = initial.seconds * pow(multiplier, Double(min(failures - 1, 62)))
        let capped = min(base, maximum.seconds)
        let scaled = capped * (1 - jitter + jitter * random())
        return .nanoseconds(Int64(scaled * 1e9))
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (s, a) = components
        return Double(s) + Double(a) / 1e18
    }
}
