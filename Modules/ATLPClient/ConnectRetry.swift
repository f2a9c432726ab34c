public import ATLPWire
public import SecureChannel
public import SystemCalls

extension ATLPConnection {
    /// How long one-off client commands (`rules publish`) keep retrying a collector that refuses
    /// the connection, e.g. one started a moment ago that is not listening yet.
    public static let refusedRetryWindow: Duration = .seconds(5)

    /// Connects and says `HELLO`, retrying while the collector refuses the connection (nothing
    /// listens at `address` yet) for up to `retryFor`, waiting 50 ms, 100 ms, … up to 1 s between
    /// attempts, over `security` (nil: plain TCP). Any other failure, or a refusal past `retryFor`, is thrown at once. Blocks: call
    /// it from a thread of the caller's, never a task of the Swift concurrency pool.
    public static func connect(
        to address: SocketAddress, hello: Hello, timeout: Duration = .seconds(10),
        retryFor: Duration = refusedRetryWindow, security: SecureChannelFactory? = nil
    ) throws(TransportError) -> ATLPConnection {
        let deadline = ContinuousClock.now + retryFor
        let backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(1))
        var failures = 0
        while true {
            do throws(TransportError) {
                return try ATLPConnection(to: address, hello: hello, timeout: timeout, security: security)
            } catch {
                failures += 1
                let wait = backoff.delay(afterFailures: failures)
                guard error.cause?.errno == ECONNREFUSED, ContinuousClock.now + wait < deadline else { throw error }
                Posix.sleep(min(wait, .seconds(1)))
            }
        }
    }
}
