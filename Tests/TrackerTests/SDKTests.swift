import DemoShop
import EventModel
import Foundation
import Interactions
import KVCConfig
import Reporters
import Synchronization
import TestSupport
import Testing
import Tracker

/// The SDK around the plan: who, when, custom events, consent, sampling, click rules, on the demo
/// shop under hooks with a manual clock shared by the hooks and the tracker.
@Suite struct SDKTests {
    static let rules = """
        {"rules": [
          {"id": "fav", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
           "keyPath": "superview.superview.product.id", "keyName": "productId"}
        ]}
        """

    struct Rig {
        let memory = MemoryReporter()
        let gate: ConsentGate
        let reporting: ReportingSystem
        let tracker: Tracker
        let clock = ManualInteractionClock(wallMilliseconds: 1_000_000)
        let session: DemoRun

        init(
            directory: String? = nil, plan: TrackingPlan? = nil, coalescing: Duration = .milliseconds(2),
            configure: (inout TrackerSettings) -> Void = { _ in }
        ) throws {
            gate = ConsentGate([memory])
            reporting = ReportingSystem([gate], coalescing: coalescing, label: "sdk-tests")
            var settings = TrackerSettings()
            settings.clock = clock
            settings.dataDirectory = directory
            configure(&settings)
            tracker = Tracker(
                plan: try plan ?? ConfigLoader.parse(text: SDKTests.rules, file: "rules.json"),
                app: try TrackedApp(key: "shop", version: "1.2.0"), reporting: reporting, session: "s", settings: settings)
            session = DemoRun(observer: tracker, clock: clock)
            let gate = self.gate
            tracker.onDiscard { gate.discard(upTo: $0) }
        }

        func perform(_ steps: DemoStep...) throws {
            for step in steps { try session.perform(step) }
        }

        func events() -> [TrackEvent] {
            #expect(reporting.flush(timeout: .seconds(10)))
            return memory.events
        }
    }

    // MARK: Who

    @Test func theDeviceIdIsDrawnOnceAndKeptInTheDataDirectory() throws {
        let dir = Fixtures.temporaryDirectory("sdk-device").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try Rig(directory: dir)
        let device = first.tracker.identity.device
        #expect(device.hasPrefix("d-") && device.count == 34)
        first.tracker.waitForSaves()
        let second = try Rig(directory: dir)
        #expect(second.tracker.identity.device == device)
        let elsewhere = try Rig(directory: Fixtures.temporaryDirectory("sdk-device-2").path)
        #expect(elsewhere.tracker.identity.device != device)
    }

    @Test func identifyAndResetChangeWhoTheEventsAreAbout() throws {
        let dir = Fixtures.temporaryDirectory("sdk-user").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let rig = try Rig(directory: dir)
        let device = rig.tracker.identity.device
        try rig.tracker.identify(user: "u-42")
        rig.tracker.waitForSaves()
        #expect(try Rig(directory: dir).tracker.identity.user == "u-42", "the user is kept")
        try rig.perform(.launch)
        let session = rig.tracker.session
        rig.tracker.reset()
        try rig.perform(.tapFavourite(row: 0))
        let events = rig.events()
        #expect(events.prefix(2).allSatisfy { $0.user == "u-42" && $0.device == device }, "who is on every event")
        #expect(events.last?.user == nil && events.last?.device == rig.tracker.identity.device)
        #expect(rig.tracker.identity.user == nil)
        #expect(rig.tracker.identity.device != device)
        #expect(rig.tracker.session != session)
        #expect(throws: TrackerError.self) { try rig.tracker.identify(user: String(repeating: "x", count: 129)) }
        #expect(throws: TrackerError.self) { try rig.tracker.identify(user: "") }
    }

    @Test func superPropertiesGoOnEveryEventAndTheEventsOwnPropsWin() throws {
        let app = try TrackedApp(key: "shop", version: "1.2.0")
        let standard = SuperProperties.standard(
            app: app, toolkit: "uikit-model", screen: (390, 844), environment: ["LANG": "en_GB.UTF-8"])
        #expect(standard["appVersion"] == "1.2.0")
        #expect(standard["toolkit"] == "uikit-model")
        #expect(standard["screen"] == "390x844")
        #expect(standard["locale"] == "en_GB")
        #expect(standard["agentVersion"] == .string(SuperProperties.agentVersion))
        #expect(standard["os"]?.stringValue?.isEmpty == false && standard["osVersion"] != nil)
        #expect(SuperProperties.standard(app: app, toolkit: nil, environment: ["LANG": "C"])["locale"] == nil)

        let rig = try Rig { $0.superProperties = standard }
        rig.tracker.register(superProperties: JSONObject([("plan", "pro"), ("title", "not the button's")]))
        try rig.perform(.launch, .tapFavourite(row: 0))
        try rig.tracker.track(name: "checkout")
        let events = rig.events()
        #expect(events.count == 4)
        for e in events {
            #expect(e.props["toolkit"] == "uikit-model" && e.props["plan"] == "pro" && e.props["locale"] == "en_GB", "\(e.type)")
        }
        let click = try #require(events.first { $0.type == .click })
        #expect(click.props["title"] == "Fav")
        #expect(click.props["productId"] == "p-1")
    }

    // MARK: When

    @Test func sessionsRotateAfterTheTimeoutWithoutInteraction() throws {
        let rig = try Rig { $0.sessionTimeout = .seconds(30 * 60) }
        try rig.perform(.launch, .wait(milliseconds: 29 * 60 * 1000), .tapFavourite(row: 0))
        try rig.perform(.wait(milliseconds: 30 * 60 * 1000), .tapFavourite(row: 1))
        try rig.perform(.wait(milliseconds: 1000), .tapShare(row: 1))
        let events = rig.events()
        #expect(events.map(\.session) == ["s", "s", "s", events[3].session, events[3].session])
        let second = try #require(events[3].session)
        #expect(second != "s" && second.hasPrefix("s-"))
        #expect(events.map(\.id) == ["s-1", "s-2", "s-3", "\(second)-1", "\(second)-2"])
    }

    @Test func theAppStartingAgainStartsANewSession() throws {
        let rig = try Rig()
        rig.tracker.observe(Interaction(kind: .appStart, timestamp: 1_000_000))
        rig.tracker.observe(Interaction(kind: .appBackground, timestamp: 1_000_100))
        rig.tracker.observe(Interaction(kind: .appStart, timestamp: 1_000_200))
        let sessions = rig.events().map(\.session)
        #expect(sessions[0] == "s" && sessions[1] == "s")
        #expect(sessions[2] != "s")
    }

    // MARK: Custom events

    @Test func trackReportsACustomEvent() throws {
        let rig = try Rig()
        rig.clock.advance(milliseconds: 250)
        #expect(try rig.tracker.track(name: "signup", props: JSONObject([("plan", "pro"), ("seats", 3), ("tags", ["a", "b"])])))
        #expect(throws: TrackerError.self) { try rig.tracker.track(name: "") }
        #expect(throws: TrackerError.self) { try rig.tracker.track(name: String(repeating: "n", count: 257)) }
        let e = try #require(rig.events().first)
        #expect(e.type == .custom && e.name == "signup" && e.ts == 1_000_250 && e.session == "s" && e.id == "s-1")
        #expect(JSONValue.object(e.props) == ["plan": "pro", "seats": 3, "tags": #"["a","b"]"#])
        #expect(TrackEvent.isValid(e))
    }

    // MARK: Consent

    @Test func withdrawingConsentStopsCaptureAndDiscardsWhatIsQueued() throws {
        let dir = Fixtures.temporaryDirectory("sdk-consent").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A long coalescing delay keeps submitted events in the reporting queue until flushed.
        let rig = try Rig(directory: dir, coalescing: .seconds(60))
        let discardedAt = Mutex<Int64?>(nil)
        rig.tracker.onDiscard { t in discardedAt.withLock { $0 = t } }
        try rig.perform(.launch, .tapFavourite(row: 0))
        rig.clock.advance(milliseconds: 10)
        rig.tracker.setConsent(false)
        #expect(discardedAt.withLock { $0 } == 1_000_010)
        #expect(!rig.tracker.isCapturing)
        try rig.perform(.tapShare(row: 0))
        #expect(try rig.tracker.track(name: "after") == false)
        #expect(rig.events().isEmpty, "queued events are dropped by the gate, new ones never made")
        #expect(rig.gate.discarded == 3)
        #expect(rig.tracker.statistics.notCaptured == 2)
        rig.tracker.waitForSaves()
        #expect(try Rig(directory: dir).tracker.hasConsent == false, "the choice is kept")

        rig.clock.advance(milliseconds: 10)
        rig.tracker.setConsent(true)
        try rig.perform(.tapShare(row: 1))
        #expect(rig.events().map(\.type) == [.click])
    }

    // MARK: Sampling

    @Test func samplingKeepsADeviceInOrOutByItsId() throws {
        let devices = (0..<2000).map { "d-\($0)" }
        let at30 = devices.filter { Sampling.includes(device: $0, appKey: "shop", rate: 0.3) }
        let at60 = devices.filter { Sampling.includes(device: $0, appKey: "shop", rate: 0.6) }
        #expect((500...700).contains(at30.count), "\(at30.count)")
        #expect(Set(at30).isSubset(of: Set(at60)), "raising the rate only adds devices")
        #expect(at30 == devices.filter { Sampling.includes(device: $0, appKey: "shop", rate: 0.3) })
        #expect(devices.allSatisfy { Sampling.includes(device: $0, appKey: "shop", rate: 1) })
        #expect(!devices.contains { Sampling.includes(device: $0, appKey: "shop", rate: 0) })

        let rig = try Rig()
        try rig.perform(.launch)
        let device = rig.tracker.identity.device
        let position = Sampling.position(device: device, appKey: "shop")
        // A rate just below this device's position leaves it out; just above takes it in.
        #expect(rig.tracker.apply(RemoteRules(etag: "out", rules: [], sampleRate: max(0, position - 0.001))))
        try rig.perform(.tapFavourite(row: 0))
        #expect(rig.tracker.apply(RemoteRules(etag: "in", rules: [], sampleRate: min(1, position + 0.001))))
        try rig.perform(.tapShare(row: 0))
        #expect(rig.events().map(\.type) == [.appStart, .pageEnter, .click])
        #expect(rig.tracker.statistics.notCaptured == 1)
    }

    // MARK: Clicks

    @Test func aRepeatedClickWithinTheDebounceIntervalCountsOnce() throws {
        // Counted clicks at 0 and 150 ms only: the bounce at 50 ms is not a click, so no rage click either.
        let rig = try Rig()
        try rig.perform(.launch, .tapFavourite(row: 0), .wait(milliseconds: 50), .tapFavourite(row: 0))
        try rig.perform(.wait(milliseconds: 100), .tapFavourite(row: 0))
        try rig.perform(.wait(milliseconds: 10), .tapShare(row: 0))
        let clicks = rig.events().filter { $0.type == .click }
        #expect(clicks.map(\.ts) == [1_000_000, 1_000_150, 1_000_160])
        #expect(rig.tracker.statistics.debounced == 1)
        #expect(rig.tracker.statistics.rageClicks == 0)
    }

    @Test func threeClicksOnOneViewWithinASecondAreARageClick() throws {
        let rig = try Rig()
        try rig.perform(.launch, .tapShare(row: 2), .wait(milliseconds: 400), .tapShare(row: 2))
        try rig.perform(.wait(milliseconds: 700), .tapShare(row: 2))  // 1.1 s after the first: no rage yet
        try rig.perform(.wait(milliseconds: 200), .tapShare(row: 2))  // 3 within 1 s
        try rig.perform(.wait(milliseconds: 200), .tapShare(row: 2))  // the count started again
        let events = rig.events().filter { $0.type == .click || $0.type == .custom }
        #expect(events.map(\.type) == [.click, .click, .click, .click, .custom, .click])
        let rage = events[4]
        #expect(rage.name == "rage_click")
        #expect(rage.path == "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1")
        #expect(rage.path == events[3].path && rage.viewId == events[3].viewId && rage.ts == events[3].ts)
        #expect(rage.props["clicks"] == 3)
        #expect(rig.tracker.statistics.rageClicks == 1)
    }

    // MARK: Settings

    @Test func settingsReadTheAgentsEnvironmentVariables() throws {
        let s = try TrackerSettings().applying(environment: [
            "AUTOTRACK_CONFIG_REFRESH": "2.5", "AUTOTRACK_SESSION_TIMEOUT": "600", "AUTOTRACK_DATA_DIR": "/tmp/at",
        ])
        #expect(s.configRefresh == .milliseconds(2500))
        #expect(s.sessionTimeout == .seconds(600))
        #expect(s.dataDirectory == "/tmp/at")
        #expect(throws: TrackerSettingsError(variable: "AUTOTRACK_CONFIG_REFRESH", value: "soon")) {
            try TrackerSettings().applying(environment: ["AUTOTRACK_CONFIG_REFRESH": "soon"])
        }
        #expect(TrackerSettings().configRefresh == .seconds(60) && TrackerSettings().sessionTimeout == .seconds(1800))
        #expect(AgentDataDirectory.default(appKey: "shop", environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/autotrack/shop")
        #expect(AgentDataDirectory.default(appKey: "shop", environment: ["HOME": "/h"]) == "/h/.local/share/autotrack/shop")
        #expect(AgentDataDirectory.default(appKey: "shop", environment: ["AUTOTRACK_DATA_DIR": "/d", "HOME": "/h"]) == "/d")
    }
}

extension TrackEvent {
    /// Whether the wire contract accepts the event as written.
    static func isValid(_ e: TrackEvent) -> Bool { (try? TrackEvent(json: e.json)) != nil }
}
