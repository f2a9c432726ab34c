import Synchronization
import Testing

@testable import SystemCalls

/// The one background-service shape: `ServiceThread`'s stop flag, wakeup and exit, and
/// `ServiceGroup`'s order.
@Suite struct ServiceLifecycleTests {
    @Test func aPauseEndsWhenWokenAndAStopEndsTheBody() {
        let thread = ServiceThread(threadName: "test-service")
        let rounds = Atomic(0)
        thread.start { t in
            while t.pause(for: .seconds(30)) { rounds.add(1, ordering: .relaxed) }
        }
        for expected in 1...3 {
            thread.wake()
            let deadline = ContinuousClock.now + .seconds(10)
            while rounds.load(ordering: .relaxed) < expected, ContinuousClock.now < deadline { Posix.sleep(.milliseconds(5)) }
            #expect(rounds.load(ordering: .relaxed) == expected, "a wake did not end the pause")
        }
        let before = ContinuousClock.now
        thread.requestStop(grace: .seconds(1))
        #expect(thread.waitUntilStopped(timeout: .seconds(10)))
        #expect(ContinuousClock.now - before < .seconds(10), "the stop waited out the 30 s pause")
        #expect(thread.isStopping && thread.stopDeadline != nil)
        #expect(thread.waitUntilStopped(timeout: .zero), "a second wait returns at once")
    }

    @Test func aThreadNeverStartedHasNothingToWaitFor() {
        let thread = ServiceThread(threadName: "test-idle")
        thread.requestStop(grace: .zero)
        #expect(!thread.isStopping)
        #expect(thread.waitUntilStopped(timeout: .zero))
    }

    @Test func aBodyThatDoesNotReturnInTimeIsReportedLate() {
        let thread = ServiceThread(threadName: "test-slow")
        let release = Atomic(false)
        thread.start { _ in
            while !release.load(ordering: .relaxed) { Posix.sleep(.milliseconds(5)) }
        }
        thread.requestStop(grace: .zero)
        #expect(!thread.waitUntilStopped(timeout: .milliseconds(50)))
        release.store(true, ordering: .relaxed)
        #expect(thread.waitUntilStopped(timeout: .seconds(10)))
    }

    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    /// A service that records when it starts and stops, and may overstay its grace period.
    final class Recorder: BackgroundService {
        let serviceName: String
        let log: Log
        let overstays: Bool
        let refuses: Bool
        init(_ name: String, log: Log, overstays: Bool = false, refuses: Bool = false) {
            serviceName = name
            self.log = log
            self.overstays = overstays
            self.refuses = refuses
        }
        func start() throws {
            if refuses { throw PosixError("\(serviceName) cannot start", errno: EADDRINUSE) }
            log.append("start \(serviceName)")
        }
        func stop(grace: Duration) -> Bool {
            log.append("stop \(serviceName)")
            return !overstays
        }
    }

    @Test func aGroupStartsInOrderAndStopsInTheReverseOrder() throws {
        let log = Log()
        let group = ServiceGroup([Recorder("store", log: log), Recorder("server", log: log, overstays: true), Recorder("studio", log: log)])
        try group.start()
        try group.start()
        let late = group.stop(grace: .seconds(1))
        #expect(log.lines.withLock { $0 } == ["start store", "start server", "start studio", "stop studio", "stop server", "stop store"])
        #expect(late == ["server"])
    }

    @Test func aServiceThatCannotStartStopsThoseStartedBeforeIt() {
        let log = Log()
        let group = ServiceGroup([
            Recorder("store", log: log), Recorder("rebuild", log: log), Recorder("server", log: log, refuses: true), Recorder("studio", log: log),
        ])
        #expect(throws: PosixError.self) { try group.start() }
        #expect(log.lines.withLock { $0 } == ["start store", "start rebuild", "stop rebuild", "stop store"])
    }

    @Test func aWorkQueueRunsJobsInOrderOnOneThreadAndSyncWaitsForTheDelayedOnes() {
        let queue = WorkQueue(threadName: "test-queue")
        let log = Log()
        queue.async(after: .milliseconds(40)) { log.append("late") }
        for i in 0..<50 { queue.async { log.append("\(i)") } }
        #expect(queue.sync(timeout: .seconds(10)))
        #expect(log.lines.withLock { $0 } == (0..<50).map { "\($0)" } + ["late"])
        let threads = Mutex<Set<UInt>>([])
        for _ in 0..<20 { queue.async { threads.withLock { _ = $0.insert(Posix.currentThreadID()) } } }
        #expect(queue.sync(timeout: .seconds(10)))
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0.contains(Posix.currentThreadID()) })
    }

    @Test func aStoppedWorkQueueRunsWhatWaitedAndThenRunsJobsOnTheCaller() {
        let queue = WorkQueue(threadName: "test-queue")
        let log = Log()
        queue.async(after: .seconds(30)) { log.append("delayed") }
        #expect(queue.stop(grace: .seconds(10)))
        #expect(log.lines.withLock { $0 } == ["delayed"])
        queue.async { log.append("after") }
        #expect(log.lines.withLock { $0 } == ["delayed", "after"])
    }
}
