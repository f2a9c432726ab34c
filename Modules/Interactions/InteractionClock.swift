import Synchronization
import SystemCalls

/// Time as the hooks read it: wall time for timestamps, a monotonic count for durations.
///
/// Injected so that tests (and the demo's scripted session) assert exact dwell times.
public protocol InteractionClock: Sendable {
    /// Milliseconds since the Unix epoch, for `ts`.
    func wallMilliseconds() -> Int64
    /// Nanoseconds from an arbitrary start that never goes backwards, for durations.
    func monotonicNanoseconds() -> UInt64
}

/// The real clocks: `CLOCK_REALTIME` and `ContinuousClock`.
public struct SystemInteractionClock: InteractionClock {
    private let origin = ContinuousClock.now

    public init() {}

    public func wallMilliseconds() -> Int64 { Posix.wallClockMillis() }

    public func monotonicNanoseconds() -> UInt64 {
        let (s, atto) = (ContinuousClock.now - origin).components
        return UInt64(max(0, s)) * 1_000_000_000 + UInt64(max(0, atto) / 1_000_000_000)
    }
}

/// A clock that moves only when told: wall and monotonic time advance together.
public final class ManualInteractionClock: InteractionClock {
    private let state: Mutex<(wall: Int64, mono: UInt64)>

    /// Starts at `wallMilliseconds` since the epoch (monotonic time starts at 0).
    public init(wallMilliseconds: Int64 = 1_700_000_000_000) {
        state = Mutex((wallMilliseconds, 0))
    }

    /// Moves both clocks forward by `milliseconds` (≥ 0).
    public func advance(milliseconds: Int64) {
        precondition(milliseconds >= 0, "a clock cannot go backwards")
        state.withLock { s in
            s.wall += milliseconds
            s.mono += UInt64(milliseconds) * 1_000_000
        }
    }

    public func wallMilliseconds() -> Int64 { state.withLock { $0.wall } }
    public func monotonicNanoseconds() -> UInt64 { state.withLock { $0.mono } }
}
