package import Synchronization

/// State a loop's I/O thread, its workers and its service's public API share; every member is
/// Sendable by itself (atomics, mutexes).
package final class LoopShared<Answer: Sendable, Statistics: Sendable>: Sendable {
    package let stopRequested = Atomic<Bool>(false)
    /// The write end of the loop's wake pipe while running, -1 otherwise.
    package let wakeFD = Atomic<Int32>(-1)
    /// The listening socket while running, -1 otherwise (tests inject accept faults on it).
    package let listenerFD = Atomic<Int32>(-1)
    /// Answers the workers finished, for the I/O thread to send.
    package let completions = Mutex<[(connection: UInt64, answer: Answer)]>([])
    package let statistics: Mutex<Statistics>

    package init(statistics: Statistics) {
        self.statistics = Mutex(statistics)
    }
}
