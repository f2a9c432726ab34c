#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// Microseconds since the Unix epoch.
    package static func wallClockMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    /// Milliseconds since the Unix epoch (the wire's `ts` and `sentAt`).
    package static func wallClockMillis() -> Int64 { wallClockMicros() / 1000 }

    /// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`): what work costs the
    /// thread itself, which other processes on a shared machine do not stretch.
    package static func threadCPUTime() -> Duration {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive timeout never becomes 0 ("don't wait").
    package var milliseconds: Int64 {
        let (s, a) = components
        return s * 1000 + (a + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// Whole nanoseconds for a `DispatchTime` offset: a negative duration is 0, and the value is
    /// capped at 10^9 s so adding it to `DispatchTime.now()` cannot overflow.
    package var waitNanoseconds: Int {
        let (s, a) = components
        return Int(min(max(0, s), 1_000_000_000)) * 1_000_000_000 + Int(max(0, a) / 1_000_000_000)
    }
}
