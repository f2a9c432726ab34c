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

/// Rules from a source (the collector, faked here) swapped into a running tracker.
@Suite struct RemoteRulesTests {
    /// The local plan: the event table names the favourite tap; one local rule reads the product id.
    static let local = """
        {"HomeViewController": {"ControlEventIDs": {"onFavBtnPressed:": "HOME_FAV"}}}
        """
    static let localRules = """
        {"rules": [
          {"id": "fav", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
           "keyPath": "superview.superview.product.id", "keyName": "productId"}
        ]}
        """

    static func rule(_ id: String, keyPath: String, keyName: String, button: Int = 0) -> JSONValue {
        [
            "id": .string(id), "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
            "viewPath": .string(
                "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-\(button)"),
            "keyPath": .string(keyPath), "keyName": .string(keyName),
        ]
    }

    /// A source that answers what the test sets, and records what it was asked and on which thread.
    final class FakeSource: RulesSource {
        struct Log {
            var etags: [String?] = []
            /// Per call: whether it ran on the refresher's own thread.
            var onRefresherThread: [Bool] = []
        }

        let answer: Mutex<Result<RulesAnswer, SourceDown>>
        let log = Mutex(Log())

        struct SourceDown: Error {}

        /// Set once the refresher exists, to ask it whether a call runs on its thread.
        let refresher = Mutex<ConfigRefresher?>(nil)

        init(_ answer: Result<RulesAnswer, SourceDown>) { self.answer = Mutex(answer) }

        func fetch(etag: String?) throws -> RulesAnswer {
            let onItsThread = refresher.withLock { $0 }?.isCurrentThread ?? false
            log.withLock { l in
                l.etags.append(etag)
                l.onRefresherThread.append(onItsThread)
            }
            return try answer.withLock { $0 }.get()
        }

        var calls: Int { log.withLock { $0.etags.count } }

        /// Waits (bounded) until the source was asked `n` times.
        func waitForCalls(_ n: Int) -> Bool {
            for _ in 0..<500 {
                if calls >= n { return true }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return false
        }
    }

    struct Rig {
        let memory = MemoryReporter()
        let reporting: ReportingSystem
        let tracker: Tracker
        let session: DemoRun

        init(directory: String? = nil, refresh: Duration = .seconds(3600)) throws {
            reporting = ReportingSystem([memory], label: "remote-rules-tests")
            var plan = try ConfigLoader.parse(text: RemoteRulesTests.local, file: "events.json")
            try plan.merge(try ConfigLoader.parse(text: RemoteRulesTests.localRules, file: "rules.json"))
            let clock = ManualInteractionClock(wallMilliseconds: 1_000_000)
            var settings = TrackerSettings()
            settings.clock = clock
            settings.dataDirectory = directory
            settings.configRefresh = refresh
            tracker = Tracker(
                plan: plan, app: try TrackedApp(key: "shop", version: "1.2.0"), reporting: reporting, session: "s",
                settings: settings)
            session = DemoRun(observer: tracker, clock: clock)
        }

        func perform(_ steps: DemoStep...) throws {
            for step in steps { try session.perform(step) }
        }

        func events() -> [TrackEvent] {
            #expect(reporting.flush(timeout: .seconds(10)))
            return memory.events
        }

        /// The props of the last click.
        func lastClick() -> JSONObject? { events().last { $0.type == .click }?.props }
    }

    @Test func remoteRulesMergeOverTheLocalPlanByRuleId() throws {
        let rig = try Rig()
        try rig.perform(.launch)
        try rig.perform(.tapFavourite(row: 0))
        #expect(rig.lastClick()?["productId"] == "p-1")
        let remote = RemoteRules(
            etag: "e1",
            rules: [
                Self.rule("fav", keyPath: "superview.superview.product.name", keyName: "productName"),
                Self.rule("share", keyPath: "superview.superview.product.price", keyName: "price", button: 1),
            ])
        #expect(rig.tracker.apply(remote))
        #expect(rig.tracker.rulesEtag == "e1")
        try rig.perform(.tapFavourite(row: 1))
        let fav = try #require(rig.lastClick())
        #expect(fav["productId"] == nil, "the remote rule of the same id replaced the local one")
        #expect(fav["productName"] == "Pour-over Kettle")
        #expect(fav["rules"] == "fav")
        try rig.perform(.tapShare(row: 1))
        #expect(rig.lastClick()?["price"] == 39.0)
        // The event table of the local plan still names the tap.
        #expect(rig.events().filter { $0.type == .click }.map(\.name).prefix(2) == ["HOME_FAV", "HOME_FAV"])
    }

    @Test func aBadRuleSetIsRefusedWholeAndReported() throws {
        let rig = try Rig()
        try rig.perform(.launch)
        #expect(rig.tracker.apply(RemoteRules(etag: "good", rules: [Self.rule("share", keyPath: "superview.superview.product.id", keyName: "shared", button: 1)])))
        let bad = RemoteRules(
            etag: "bad",
            rules: [
                Self.rule("fav", keyPath: "superview.superview.product.name", keyName: "productName"),
                Self.rule("broken", keyPath: "product..id", keyName: "x"),
            ])
        #expect(!rig.tracker.apply(bad))
        #expect(!rig.tracker.apply(RemoteRules(etag: "rate", rules: [], sampleRate: 1.5)))
        #expect(rig.tracker.rulesEtag == "good")
        try rig.perform(.tapFavourite(row: 0), .tapShare(row: 0))
        let events = rig.events()
        let rejected = events.filter { $0.name == "config_rejected" }
        #expect(rejected.count == 2)
        let first = try #require(rejected.first)
        #expect(first.type == .kvcError)
        #expect(first.props["etag"] == "bad" && first.props["appKey"] == "shop" && first.props["appVersion"] == "1.2.0")
        #expect(first.props["problems"] == 1)
        #expect(first.props["problem"]?.stringValue?.contains("keyPath") == true)
        #expect(rejected[1].props["problem"]?.stringValue?.contains("sampleRate") == true)
        let clicks = events.filter { $0.type == .click }
        #expect(clicks[0].props["productId"] == "p-1" && clicks[0].props["productName"] == nil, "the previous set stays")
        #expect(clicks[1].props["shared"] == "p-1")
        #expect(rig.tracker.statistics.rejectedRuleSets == 2)
    }

    @Test func theRefresherAsksOnItsOwnThreadWithTheEtagAndOnReturnToTheForeground() throws {
        let rig = try Rig()
        let source = FakeSource(.success(.rules(RemoteRules(etag: "e1", rules: [Self.rule("fav", keyPath: "superview.superview.product.name", keyName: "productName")]))))
        // Held until the refresher is known, so its first call can tell which thread it runs on.
        let gate = source.answer.withLock { $0 }
        source.answer.withLock { $0 = .failure(FakeSource.SourceDown()) }
        let refresher = rig.tracker.startRemoteConfig(source: source)
        defer { refresher.stop() }
        source.refresher.withLock { $0 = refresher }
        #expect(refresher.waitForFirstAttempt(timeout: .seconds(10)))
        source.answer.withLock { $0 = gate }
        refresher.refreshSoon()
        #expect(source.waitForCalls(2))
        for _ in 0..<500 where rig.tracker.rulesEtag == nil { Thread.sleep(forTimeInterval: 0.01) }
        #expect(rig.tracker.rulesEtag == "e1")
        #expect(!refresher.isCurrentThread, "the test's thread is not the refresher's")
        source.answer.withLock { $0 = .success(.unchanged(etag: "e1")) }
        try rig.perform(.launch, .tapFavourite(row: 0), .background, .foreground)
        #expect(source.waitForCalls(3), "returning to the foreground asks again")
        let log = source.log.withLock { $0 }
        #expect(log.etags.prefix(3) == [nil, nil, "e1"])
        #expect(log.onRefresherThread.dropFirst().allSatisfy { $0 }, "\(log.onRefresherThread)")
        #expect(rig.lastClick()?["productName"] == "Espresso Cup")
        #expect(rig.tracker.rulesEtag == "e1")
        #expect(refresher.statistics.unchanged >= 1 && refresher.statistics.applied == 1)
    }

    @Test func aRefusedSetIsReportedOnceThoughTheCollectorServesItAgain() throws {
        let rig = try Rig()
        let bad = RemoteRules(etag: "bad", rules: [Self.rule("broken", keyPath: "a..b", keyName: "x")])
        let source = FakeSource(.success(.rules(bad)))
        let refresher = rig.tracker.startRemoteConfig(source: source)
        defer { refresher.stop() }
        #expect(refresher.waitForFirstAttempt(timeout: .seconds(10)))
        try rig.perform(.launch, .background, .foreground)
        #expect(source.waitForCalls(2))
        #expect(refresher.stop())
        #expect(rig.events().filter { $0.name == "config_rejected" }.count == 1)
        #expect(refresher.statistics.refused == 1 && refresher.statistics.answers == 2)
        #expect(rig.tracker.rulesEtag == nil, "the local plan stays in use")
    }

    @Test func theLastGoodSetIsKeptOnDiskForAnOfflineStart() throws {
        let dir = Fixtures.temporaryDirectory("remote-rules").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let online = try Rig(directory: dir)
            let source = FakeSource(
                .success(.rules(RemoteRules(etag: "e7", rules: [Self.rule("fav", keyPath: "superview.superview.product.name", keyName: "productName")], sampleRate: 1))))
            let refresher = online.tracker.startRemoteConfig(source: source)
            #expect(refresher.waitForFirstAttempt(timeout: .seconds(10)))
            #expect(refresher.stop())
        }
        let offline = try Rig(directory: dir)
        let down = FakeSource(.failure(FakeSource.SourceDown()))
        let refresher = offline.tracker.startRemoteConfig(source: down)
        defer { refresher.stop() }
        #expect(refresher.waitForFirstAttempt(timeout: .seconds(10)))
        #expect(refresher.statistics.loadedFromDisk && refresher.statistics.failures == 1)
        #expect(offline.tracker.rulesEtag == "e7")
        #expect(down.log.withLock { $0.etags } == ["e7"], "it tells the collector which set it has")
        try offline.perform(.launch, .tapFavourite(row: 2))
        #expect(offline.lastClick()?["productName"] == "Gift Card")
    }
}
