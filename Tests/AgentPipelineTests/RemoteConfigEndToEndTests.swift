import ATLPWire
import AgentCommands
import Collector
import CommandSupport
import DemoShop
import EventModel
import Foundation
import Hooks
import KVCConfig
import AgentPipeline
import Reporters
import SystemCalls
import TestSupport
import Testing
import Tracker

/// A running app (the demo shop under hooks and a tracker, in process) and a real collector on a
/// loopback port: `rules publish` changes what the app reports, with no restart.
@Suite struct RemoteConfigEndToEndTests {
    /// The app's own plan: the favourite tap has an event id, no rule reads anything.
    static let localPlan = """
        {"HomeViewController": {"ControlEventIDs": {"onFavBtnPressed:": "CTRL_EVENT_HOME_FAV"}}}
        """
    static let publishedRules = """
        {"rules": [
          {"id": "home-fav-product", "appKey": "shop", "appVersion": ">=1.0.0 <2.0.0", "viewEvent": "ButtonClick",
           "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0",
           "keyPath": "superview.superview.product.id", "keyName": "productId"}
        ]}
        """

    /// Runs `autotrack-collector ARGS...` in process.
    static func collector(_ args: [String]) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test func aPublishedRuleReachesTheRunningAppWithinOneRefreshInterval() throws {
        let dir = Fixtures.temporaryDirectory("remote-config-e2e")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = EmbeddedCollector(
            dbPath: dir.appendingPathComponent("c.sqlite").path, access: CollectorAccess(adminToken: "admin"))
        let address = try collector.start()
        defer { collector.stop() }

        // The app: tracker + hooks + demo shop, asking the collector for rules every 200 ms.
        let memory = MemoryReporter()
        let reporting = ReportingSystem([memory], label: "remote-config-e2e")
        let app = try TrackedApp(key: "shop", version: "1.2.0")
        var settings = TrackerSettings()
        settings.configRefresh = .milliseconds(200)
        settings.dataDirectory = dir.appendingPathComponent("agent").path
        let tracker = Tracker(
            plan: try ConfigLoader.parse(text: Self.localPlan, file: "events.json"), app: app, reporting: reporting,
            settings: settings)
        let refresher = tracker.startRemoteConfig(
            source: ATLPRulesSource(address: address, hello: Hello(appKey: "shop", appVersion: "1.2.0", agent: "e2e-test")))
        defer { refresher.stop() }
        #expect(refresher.waitForFirstAttempt(timeout: .seconds(10)))
        let firstEtag = try #require(tracker.rulesEtag, "the collector answered at start: \(refresher.statistics)")
        let appliedAtStart = refresher.statistics.applied

        let session = DemoRun(observer: tracker)
        try session.perform(.launch)
        try session.perform(.tapFavourite(row: 0))

        // Publish a rule while the app runs.
        let rules = dir.appendingPathComponent("rules.json")
        try Self.publishedRules.write(to: rules, atomically: true, encoding: .utf8)
        let published = Self.collector(["rules", "publish", rules.path, "--to", address.description, "--token", "admin"])
        #expect(published.code == .success, "\(published.err)")

        // Within one refresh interval the new set is in use and kept on disk (bounded wait: 10 s at most).
        var swapped = false
        for _ in 0..<1000 {
            if let etag = tracker.rulesEtag, etag != firstEtag, refresher.statistics.applied > appliedAtStart {
                swapped = true
                break
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(swapped, "\(refresher.statistics)")
        try session.perform(.wait(milliseconds: 500))
        try session.perform(.tapFavourite(row: 2))

        #expect(reporting.flush(timeout: .seconds(10)))
        let clicks = memory.events.filter { $0.type == .click }
        try #require(clicks.count == 2)
        #expect(clicks[0].name == "CTRL_EVENT_HOME_FAV" && clicks[0].props["productId"] == nil)
        #expect(clicks[1].name == "CTRL_EVENT_HOME_FAV")
        #expect(clicks[1].props["productId"] == "p-3")
        #expect(clicks[1].props["rules"] == "home-fav-product")
        #expect(clicks[0].session == clicks[1].session, "the same app run: no restart")

        // The set is kept on disk: the collector down, a new start uses it.
        collector.stop()
        let offline = Tracker(
            plan: try ConfigLoader.parse(text: Self.localPlan, file: "events.json"), app: app, reporting: reporting,
            settings: settings)
        let offlineRefresher = offline.startRemoteConfig(
            source: ATLPRulesSource(address: address, hello: Hello(appKey: "shop", appVersion: "1.2.0"), timeout: .seconds(1)))
        defer { offlineRefresher.stop() }
        #expect(offlineRefresher.waitForFirstAttempt(timeout: .seconds(10)))
        #expect(offline.rulesEtag == tracker.rulesEtag)
        #expect(offlineRefresher.statistics.loadedFromDisk && offlineRefresher.statistics.failures >= 1)
        #expect(offline.plan.rules.map(\.id) == ["home-fav-product"])
    }

    @Test func theDemoMergesTheCollectorsRulesOverItsBuiltInConfiguration() throws {
        let dir = Fixtures.temporaryDirectory("remote-config-demo")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = EmbeddedCollector(
            dbPath: dir.appendingPathComponent("c.sqlite").path, access: CollectorAccess(adminToken: "admin"))
        let address = try collector.start()
        defer { collector.stop() }
        // A published rule the built-in configuration lacks, reading a key the product has not:
        // each of the session's two row selections gives one more kvc_error.
        let rules = dir.appendingPathComponent("rules.json")
        try """
            {"rules": [{"id": "remote-colour", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*", "keyPath": "product.colour",
              "keyName": "colour"}]}
            """.write(to: rules, atomically: true, encoding: .utf8)
        #expect(Self.collector(["rules", "publish", rules.path, "--to", address.description, "--token", "admin"]).code == .success)

        let io = CapturedStreams()
        let code = AgentCLI.group.main(["demo", "--to", address.description, "--config-refresh", "0.5"], io: io)
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput.hasPrefix("demo: 25 interactions: 28 events (3 kvc_error)"), "\(io.standardOutput)")

        let usage = CapturedStreams()
        #expect(AgentCLI.group.main(["demo", "--config-refresh", "0"], io: usage) == .usage)
    }
}
