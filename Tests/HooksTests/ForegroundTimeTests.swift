import DemoShop
import EventModel
import Hooks
import Interactions
import Testing

/// `app_background` and `app_end` with the foreground time (docs/hooks.md "App lifecycle"), on the
/// simulated UIKit model with a manual clock.
@Suite struct ForegroundTimeTests {
    /// The demo shop launched at 0 ms on a manual clock, reporting to a recorder.
    static func launched() throws -> (InteractionRecorder, DemoRun) {
        let recorder = InteractionRecorder()
        let session = DemoRun(observer: recorder, clock: ManualInteractionClock(wallMilliseconds: 0))
        try session.perform(.launch)
        return (recorder, session)
    }

    @Test func backgroundAndEndCarryTheTimeInTheForegroundSinceTheLastStartOrReturn() throws {
        let (recorder, session) = try Self.launched()
        try session.perform(.wait(milliseconds: 3000))
        try session.perform(.background)
        try session.perform(.wait(milliseconds: 5000))
        try session.perform(.foreground)
        try session.perform(.wait(milliseconds: 1200))
        let app = try #require(session.app?.application)
        app.terminate()
        app.terminate()  // once only
        let events = recorder.events.filter { $0.path == nil }
        #expect(events.map(\.type) == [.appStart, .appBackground, .appForeground, .appEnd])
        #expect(events.map(\.duration) == [nil, 3000, nil, 1200])
        #expect(events.map { $0.props["duration"] } == [nil, .int(3000), nil, .int(1200)])
        #expect(events.last?.name == "app_end")
        #expect(events.last?.ts == 9200)
        #expect(app.state == .terminated)
        for e in events { #expect(try TrackEvent(json: e.json) == e) }
    }

    @Test func anEndInTheBackgroundCarriesNoSecondForegroundTime() throws {
        let (recorder, session) = try Self.launched()
        try session.perform(.wait(milliseconds: 700))
        try session.perform(.background)
        try session.perform(.wait(milliseconds: 9000))
        session.app?.application.terminate()
        let durations = recorder.events.filter { $0.path == nil }.map { "\($0.type.rawValue) \($0.duration.map(String.init) ?? "-")" }
        // The run's durations add up to its time in the foreground: 700 ms.
        #expect(durations == ["app_start -", "app_background 700", "app_end 0"])
    }

    @Test func aTerminatedOrNeverLaunchedAppReportsNoEnd() throws {
        let (recorder, session) = try Self.launched()
        let app = try #require(session.app?.application)
        app.terminate()
        app.enterBackground()
        app.enterForeground()
        app.launch()
        #expect(recorder.summary.filter { $0.hasPrefix("app_") } == ["app_start app_start", "app_end app_end"])
        let idle = UIApplication()
        idle.terminate()
        #expect(idle.state == .notRunning)
    }
}
