import CSystemCalls

#if canImport(Glibc)
import Glibc
#endif

extension Posix {
    /// Starts a detached thread of our own running `body` (Linux shows the first 15 bytes of
    /// `name`, e.g. in `top -H`). Failing to create one (out of memory or threads) traps: a
    /// server without its threads cannot do anything useful.
    package static func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Start: Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
                csc_name_thread(start.name)
                start.body()
                return nil
            }, start)
        precondition(rc == 0, "pthread_create(\(name)): \(describe(rc)) (errno \(rc)): out of threads or memory")
        pthread_detach(thread)
    }

    /// The calling thread's id, equal on every call from one thread while it runs (so a thread
    /// can tell whether it is one it started).
    package static func currentThreadID() -> UInt { UInt(pthread_self()) }

    /// Gives the calling thread the nice value `nice` (0 normal, up to 19 the least share of a
    /// busy processor), for work that may wait while others' may not: Linux keeps a nice value per
    /// thread, so `setpriority` on the thread's own id changes this thread alone. An idle
    /// processor still runs it at full speed; only when threads compete does it get less.
    /// Lowering needs no privilege; raising back below the current value does (`EACCES`).
    package static func setCurrentThreadNice(_ nice: Int32) throws(PosixError) {
        #if os(Linux)
        let tid = id_t(csc_thread_id())
        _ = try check("setpriority(thread \(tid), \(nice))") { setpriority(__priority_which_t(PRIO_PROCESS.rawValue), tid, nice) }
        #endif
    }

    /// The calling thread's nice value (`getpriority` on its own thread id, which cannot fail:
    /// its −1 is a nice value, not an error).
    package static func currentThreadNice() -> Int32 {
        #if os(Linux)
        return getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(csc_thread_id()))
        #else
        return 0
        #endif
    }
}
