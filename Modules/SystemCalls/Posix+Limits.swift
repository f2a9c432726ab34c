#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    /// Raises the soft fd limit toward `wanted` (never above the hard limit); returns the new soft limit.
    package static func raiseFileLimit(to wanted: Int) -> Int {
        var rl = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return 0 }
        if rl.rlim_cur < rlim_t(wanted) {
            rl.rlim_cur = min(rlim_t(wanted), rl.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
        }
        return Int(rl.rlim_cur)
    }
}
