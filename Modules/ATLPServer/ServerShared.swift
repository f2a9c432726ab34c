import Dispatch
import Synchronization

/// State the I/O thread, the workers and the public API share; every member is
/// Sendable by itself (atomics, mutexes, a semaphore).
final class ServerShared: Sendable {
    let stopRequested = Atomic<Bool>(false)
    let wakeFD = Atomic<Int32>(-1)
    /// The listening socket while running (tests inject accept faults on it).
    let listenerFD = Atomic<Int32>(-1)
    let finished = DispatchSemaphore(value: 0)
    let completions = Mutex<[(id: UInt64, outcome: Outcome)]>([])
    let statistics = Mutex(ATLPServerStatistics())
}
