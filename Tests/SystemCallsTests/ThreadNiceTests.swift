import Foundation
import Synchronization
import SystemCalls
import Testing

/// `Posix.setCurrentThreadNice` changes the calling thread's nice value and no other thread's
/// (Linux keeps one per thread): the rollup worker lowers its own this way.
@Suite struct ThreadNiceTests {
    @Test(.timeLimit(.minutes(3))) func aThreadLowersItsOwnNiceValueAndNoOtherThreads() throws {
        let before = Posix.currentThreadNice()
        let seen = DispatchSemaphore(value: 0)
        let values = ValuesBox()
        Posix.startThread(name: "nice-test") {
            let start = Posix.currentThreadNice()
            let set = Result { () throws(PosixError) in try Posix.setCurrentThreadNice(min(19, start + 5)) }
            values.set(start: start, after: Posix.currentThreadNice(), failed: (try? set.get()) == nil)
            seen.signal()
        }
        #expect(seen.wait(timeout: .now() + 60) == .success, "the thread ran")
        let v = values.get()
        #expect(!v.failed)
        #expect(v.after == min(19, v.start + 5), "the thread's own nice value: \(v)")
        #expect(Posix.currentThreadNice() == before, "the calling thread keeps its own")
    }
}

/// What the started thread saw, handed to the test under a lock.
private final class ValuesBox: Sendable {
    struct Values: Sendable {
        var start: Int32 = 0
        var after: Int32 = 0
        var failed = true
    }
    private let values = Mutex(Values())
    func set(start: Int32, after: Int32, failed: Bool) { values.withLock { $0 = Values(start: start, after: after, failed: failed) } }
    func get() -> Values { values.withLock { $0 } }
}
