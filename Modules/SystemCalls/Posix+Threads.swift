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
}
