import Foundation
import Synchronization
import Testing
import Tracker

/// Circle mode as the config refresher learns it from each answer (docs/agent.md "Snapshots").
@Suite(.timeLimit(.minutes(3))) struct CircleModeTests {
    /// A source whose answers say what the test sets; it counts the requests.
    final class CircleSource: RulesSource {
        let state = Mutex<(circle: Bool, down: Bool, calls: Int)>((false, false, 0))
        struct Down: Error {}

        func fetch(etag: String?) throws -> RulesAnswer { try fetchWithCircleMode(etag: etag).answer }

        func fetchWithCircleMode(etag: String?) throws -> (answer: RulesAnswer, circleMode: Bool) {
            let s = state.withLock { s in
                s.calls += 1
                return s
            }
            if s.down { throw Down() }
            return (.unchanged(etag: "e"), s.circle)
        }

        var calls: Int { state.withLock { $0.calls } }

        /// Waits (bounded by `seconds`) until `condition` holds.
        func wait(seconds: Double, until condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition() { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return condition()
        }
    }

    @Test func anAnswerTurnsItOnThenTheSourceIsAskedEveryThreeSecondsUntilItIsOff() throws {
        let rig = try RemoteRulesTests.Rig(refresh: .seconds(3600))
        let source = CircleSource()
        let changes = Mutex<[Bool]>([])
        let refresher = rig.tracker.startRemoteConfig(source: source)
        defer { refresher.stop() }
        refresher.onCircleModeChange { on in changes.withLock { $0.append(on) } }
        #expect(source.wait(seconds: 5) { source.calls >= 1 })
        #expect(!refresher.circleMode)

        source.state.withLock { $0.circle = true }
        refresher.refreshSoon()
        #expect(source.wait(seconds: 5) { changes.withLock { $0 } == [true] })
        #expect(refresher.circleMode)
        // No refreshSoon now: the 3-second interval alone brings the next requests.
        let asked = source.calls
        #expect(source.wait(seconds: 8) { source.calls >= asked + 2 }, "asked \(source.calls - asked) times")

        source.state.withLock { $0.circle = false }
        #expect(source.wait(seconds: 5) { changes.withLock { $0 } == [true, false] })
        let afterOff = source.calls
        Thread.sleep(forTimeInterval: 3.5)
        #expect(source.calls == afterOff, "back to the hour-long interval")
    }

    @Test func aFailedRequestTurnsItOffAndALateListenerHearsItIsOn() throws {
        let rig = try RemoteRulesTests.Rig(refresh: .seconds(3600))
        let source = CircleSource()
        source.state.withLock { $0.circle = true }
        let refresher = rig.tracker.startRemoteConfig(source: source)
        defer { refresher.stop() }
        #expect(source.wait(seconds: 5) { refresher.circleMode })
        let changes = Mutex<[Bool]>([])
        refresher.onCircleModeChange { on in changes.withLock { $0.append(on) } }
        #expect(changes.withLock { $0 } == [true], "told at once that it is on")
        source.state.withLock { $0.down = true }
        refresher.refreshSoon()
        #expect(source.wait(seconds: 5) { changes.withLock { $0 } == [true, false] })
        #expect(!refresher.circleMode)
    }

    @Test func aSourceThatKnowsNothingOfCircleModeSaysOff() throws {
        let source = RemoteRulesTests.FakeSource(.success(.unchanged(etag: "e")))
        #expect(try source.fetchWithCircleMode(etag: nil).circleMode == false)
    }
}
