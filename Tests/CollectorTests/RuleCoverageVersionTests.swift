import Collector
import Definitions
import EventModel
import EventStore
import Foundation
import KVCConfig
import SQLiteStore
import Testing
import TestSupport

/// A rule covers only the events of app versions its range holds, as CONFIG serves it only to them.
@Suite struct RuleCoverageVersionTests {
    @Test func coverageAndValuesFollowTheRulesVersionRange() throws {
        let path = Fixtures.temporaryDirectory("coverage").appendingPathComponent("v.sqlite").path
        let store = try SQLiteEventStore(path: path)
        let button = "DetailViewController-UIView-UIButton&0-0-1"
        func click(_ id: String, sku: String) -> JSONValue {
            ReportFixture.event(id, "click", "BUY", path: button, props: [("sku", .string(sku))])
        }
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "0.9.0", events: [click("old-1", sku: "a"), click("old-2", sku: "a")]))
        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.2.0", events: [click("new-1", sku: "b")]))
        _ = try store.append(EventBatch(appKey: "shop", events: [click("unversioned", sku: "c")]))
        func rule(_ id: String, _ range: String) -> JSONValue {
            [
                "id": .string(id), "appKey": "shop", "appVersion": .string(range), "viewEvent": "ButtonClick",
                "viewPath": .string(button), "keyPath": "sku", "keyName": "sku",
            ]
        }
        try store.publish(try KVCRule.rules(json: [rule("legacy", "<1.0.0"), rule("current", ">=1.0.0"), rule("all", "*")], source: "t").map(StoredRule.init), sampleRate: 1)

        let rules = Dictionary(uniqueKeysWithValues: try CollectorReport(store: store).rules.map { ($0.rule.id, $0) })
        #expect(rules["legacy"]?.covered == 2)
        #expect(rules["legacy"]?.values == [ValueCount(value: "a", count: 2)])
        #expect(rules["current"]?.covered == 1)
        #expect(rules["current"]?.values == [ValueCount(value: "b", count: 1)])
        // An event whose HELLO named no version counts only for a rule of every version.
        #expect(rules["all"]?.covered == 4)
    }
}
