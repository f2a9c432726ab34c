import EventModel
import Foundation
import Reporters
import Synchronization
import SystemCalls
import Testing
import TestSupport

/// A reporter that always fails, counting its attempts.
final class FailingReporter: Reporter {
    struct Broken: Error, CustomStringConvertible {
        var description: String { "disk on fire" }
    }

    private let attempts = Mutex(0)
    var attemptCount: Int { attempts.withLock { $0 } }

    func report(_ event: TrackEvent) throws {
        attempts.withLock { $0 += 1 }
        throw Broken()
    }
}

/// Collects diagnostics announced by a reporting system.
final class DiagnosticsSink: Sendable {
    private let items = Mutex<[ReporterFailure]>([])
    var all: [ReporterFailure] { items.withLock { $0 } }
    func add(_ f: ReporterFailure) { items.withLock { $0.append(f) } }
}

/// Event `n`: a tap whose title needs escaping (TestSupport's one factory).
func sampleEvent(_ n: Int, type: EventType = .click) -> TrackEvent {
    TestEvents.event(
        "ev-\(n)", type: type, name: "HomeViewController#HomeViewController#onFavBtnPressed:", ts: TestEvents.time + Int64(n),
        page: "HomeViewController", path: "HomeViewController-UIView-UIButton&0-0-0", viewId: "0123456789abcdef0123456789abcdef",
        props: [("title", .string("Fav \"\(n)\"\n")), ("n", .int(Int64(n)))])
}

@Suite struct ReportingSystemTests {
    @Test func deliversEveryEventInOrderToEveryReporter() {
        let a = MemoryReporter()
        let b = MemoryReporter()
        let system = ReportingSystem([a, b])
        for i in 1...200 { system.submit(sampleEvent(i)) }
        #expect(system.flush())
        #expect(a.events.map(\.id) == (1...200).map { "ev-\($0)" })
        #expect(b.events == a.events)
        #expect(system.statistics == ReportingSystem.Statistics(submitted: 200, delivered: 200, dropped: 0, failures: 0))
    }

    /// A drained buffer's room takes the next burst: bursts between drains, one larger than the room
    /// kept, and events submitted while a drain delivers all arrive once, in order.
    @Test func burstsAcrossDrainsArriveOnceAndInOrder() {
        let memory = MemoryReporter()
        let system = ReportingSystem([memory], coalescing: .zero)
        var next = 1
        for burst in [3, 40, 1, 1_600, 7, 0, 64] {
            for _ in 0..<burst {
                system.submit(sampleEvent(next))
                next += 1
            }
            #expect(system.flush())
        }
        // Without waiting: the queue drains while events are still being submitted.
        for _ in 0..<5_000 {
            system.submit(sampleEvent(next))
            next += 1
        }
        #expect(system.flush())
        #expect(memory.events.map(\.id) == (1..<next).map { "ev-\($0)" })
        #expect(system.statistics == ReportingSystem.Statistics(submitted: next - 1, delivered: next - 1, dropped: 0, failures: 0))
    }

    /// A service of its own (`BackgroundService`): stopping delivers what waits in a burst's
    /// coalescing window, on the system's own thread, and ends it; a later event is delivered on
    /// the caller's thread, not lost.
    @Test func stoppingDeliversWhatWaitsAndLaterEventsStillArrive() {
        let memory = MemoryReporter()
        let system = ReportingSystem([memory], coalescing: .seconds(30))
        for i in 1...5 { system.submit(sampleEvent(i)) }
        #expect(memory.events.isEmpty)
        #expect(system.stop(grace: .seconds(10)))
        #expect(memory.events.map(\.id) == (1...5).map { "ev-\($0)" })
        system.submit(sampleEvent(6))
        #expect(memory.events.map(\.id).last == "ev-6")
        #expect(system.statistics.delivered == 6)
    }

    @Test func aFailingReporterIsAnnouncedOnceAndTheOthersGoOn() throws {
        let good = MemoryReporter()
        let bad = FailingReporter()
        let sink = DiagnosticsSink()
        let system = ReportingSystem([bad, good], diagnostics: { sink.add($0) })
        for i in 1...5 { system.submit(sampleEvent(i)) }
        #expect(system.flush())
        #expect(good.events.count == 5)
        #expect(bad.attemptCount == 5)
        let announced = sink.all
        try #require(announced.count == 1)
        #expect(announced[0].reporterIndex == 0)
        #expect(announced[0].operation == "report")
        #expect(announced[0].eventID == "ev-1")
        #expect(announced[0].reporterType.hasSuffix("FailingReporter"))
        #expect(announced[0].description.contains("disk on fire"))
        #expect(system.statistics.failures == 5)
        #expect(system.statistics.delivered == 0)
    }

    @Test func eventsBeyondCapacityAreDroppedAndCounted() {
        // A reporter that blocks until released keeps events waiting, so the queue fills.
        final class Gate: Reporter {
            let open = Mutex(false)
            let seen = Mutex(0)
            func report(_ event: TrackEvent) {
                for _ in 0..<5_000 {
                    if open.withLock({ $0 }) { break }
                    Posix.sleep(.milliseconds(1))
                }
                seen.withLock { $0 += 1 }
            }
        }
        let gate = Gate()
        let system = ReportingSystem([gate], capacity: 3)
        var accepted = 0
        for i in 1...10 where system.submit(sampleEvent(i)) { accepted += 1 }
        gate.open.withLock { $0 = true }
        #expect(system.flush())
        #expect(accepted == 3)
        #expect(gate.seen.withLock { $0 } == 3)
        #expect(system.statistics.dropped == 7)
        #expect(system.statistics.submitted == 10)
    }

    @Test func flushGivesUpAfterItsTimeout() {
        final class Stuck: Reporter {
            let release = Mutex(false)
            func report(_ event: TrackEvent) {
                for _ in 0..<5_000 where !release.withLock({ $0 }) { Posix.sleep(.milliseconds(1)) }
            }
        }
        let stuck = Stuck()
        let system = ReportingSystem([stuck])
        system.submit(sampleEvent(1))
        #expect(!system.flush(timeout: .milliseconds(20)))
        stuck.release.withLock { $0 = true }
        #expect(system.flush())
    }
}

@Suite struct ReporterTests {
    @Test func multiplexFansOutAndNamesTheReportersThatFailed() throws {
        let a = MemoryReporter()
        let b = MemoryReporter()
        let multiplex = MultiplexReporter([a, FailingReporter(), b])
        do {
            try multiplex.report(sampleEvent(1))
            Issue.record("the failing reporter's error was swallowed")
        } catch {
            #expect(error.failures.map(\.index) == [1])
            #expect(error.description.contains("reporter #1"))
            #expect(error.description.contains("disk on fire"))
        }
        #expect(a.events.map(\.id) == ["ev-1"])
        #expect(b.events.map(\.id) == ["ev-1"])
        try MultiplexReporter([a, b]).report(sampleEvent(2))
        #expect(b.events.map(\.id) == ["ev-1", "ev-2"])
    }

    @Test func jsonLinesFileHoldsOneWireEventPerLine() throws {
        let dir = Fixtures.temporaryDirectory("reporters")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("events.jsonl").path
        let file = try JSONLinesFileReporter(path: path)
        let system = ReportingSystem([file])
        let events = (1...3).map { sampleEvent($0) } + [TrackEvent(id: "ev-4", ts: 5, type: .appStart, name: "app_start")]
        for e in events { system.submit(e) }
        #expect(system.flush())
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5)
        #expect(lines.last == "")
        #expect(lines[3] == #"{"id":"ev-4","ts":5,"type":"app_start","name":"app_start"}"#)
        for (line, event) in zip(lines, events) {
            #expect(try TrackEvent(json: JSONValue.parse(String(line))) == event)
        }
        // Appends to what is there; a closed reporter refuses to write.
        file.close()
        let again = try JSONLinesFileReporter(path: path)
        try again.report(sampleEvent(9))
        #expect(try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count == 5)
        #expect(throws: ReporterError.self) { try file.report(sampleEvent(10)) }
    }

    @Test func anUnwritableFileIsATypedErrorThatSaysWhy() {
        do {
            _ = try JSONLinesFileReporter(path: "/nonexistent-dir-autotrack/events.jsonl")
            Issue.record("opened a file in a folder that does not exist")
        } catch {
            #expect(error.code == .openFailed)
            #expect(error.description.contains("/nonexistent-dir-autotrack/events.jsonl"))
            #expect(error.description.contains("No such file or directory"))
        }
    }

    @Test func consoleLinesInBothFormats() {
        let e = TrackEvent(id: "x", ts: 1, type: .pageLeave, name: "HomeViewController", path: "HomeViewController&0", duration: 1500)
        #expect(ConsoleReporter.line(for: e, format: .json) == #"{"id":"x","ts":1,"type":"page_leave","name":"HomeViewController","path":"HomeViewController&0","duration":1500}"#)
        #expect(ConsoleReporter.line(for: sampleEvent(1), format: .text).hasPrefix("click HomeViewController#HomeViewController#onFavBtnPressed: path=HomeViewController-UIView-UIButton&0-0-0 props={"))
        #expect(ConsoleReporter.line(for: e, format: .text) == "page_leave HomeViewController path=HomeViewController&0 duration=1500ms")
    }

    @Test func memoryReporterKeepsOrderAndCanBeCleared() {
        let m = MemoryReporter()
        m.report(sampleEvent(1, type: .pageEnter))
        m.report(sampleEvent(2))
        #expect(m.summary == ["page_enter HomeViewController#HomeViewController#onFavBtnPressed:", "click HomeViewController#HomeViewController#onFavBtnPressed:"])
        m.removeAll()
        #expect(m.events.isEmpty)
    }
}
