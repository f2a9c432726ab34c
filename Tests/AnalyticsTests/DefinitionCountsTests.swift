import Analytics
import Definitions
import EventModel
import EventStore
import KVCConfig
import Testing
import TestSupport

/// Previews and heatmaps (module Definitions) against a brute-force count of every stored event,
/// on both stores, over seeded shop traffic.
@Suite(.timeLimit(.minutes(5))) struct DefinitionCountsTests {
    @Test(arguments: FixtureStore.allCases) func countsEqualABruteForceScan(_ kind: FixtureStore) throws {
        let store = try DefinitionFixture.store(kind)
        defer { store.close() }
        let all = try DefinitionFixture.allEvents(store)
        var nonEmpty = 0
        for rule in try DefinitionFixture.rules() {
            for range in DefinitionFixture.ranges {
                let selected = all.filter { DefinitionFixture.selects(rule, $0, since: range.since, until: range.until) }
                var days: [Int64: Int] = [:]
                var values: [String: Int] = [:]
                for e in selected {
                    days[UTCDay.number(of: e.time), default: 0] += 1
                    let value: String? =
                        if let keyName = rule.keyName, let v = e.event.props[keyName] { v.stringValue ?? v.jsonText } else {
                            DefinitionFixture.title(e)
                        }
                    if let value { values[value, default: 0] += 1 }
                }
                let counts = try store.definitionCounts(rule, since: range.since, until: range.until, valueLimit: 1000)
                let label = "\(kind) \(rule.id) \(range)"
                #expect(counts.total == selected.count, "\(label)")
                #expect(counts.days.map(\.count).reduce(0, +) == selected.count, "\(label)")
                #expect(Dictionary(uniqueKeysWithValues: counts.days.map { ($0.day.number, $0.count) }) == days, "\(label)")
                #expect(counts.days.map(\.day) == counts.days.map(\.day).sorted(), "\(label)")
                #expect(Dictionary(uniqueKeysWithValues: counts.values.map { ($0.value, $0.count) }) == values, "\(label)")
                #expect(counts.valueSource == (rule.keyName != nil && !selected.isEmpty ? .keyName : .title), "\(label)")
                if !selected.isEmpty { nonEmpty += 1 }
            }
        }
        // The fixture is not vacuous: most rules select events in most ranges, and content matches values too.
        #expect(nonEmpty >= 12)
        let bySku = try store.definitionCounts(try #require(try DefinitionFixture.rules().first { $0.id == "pay-sku-9" }))
        #expect(bySku.total == 2 + 3 + 7)  // value sku-9 with title PAY, with title Buy now; title sku-9
        #expect(try store.definitionCounts(try #require(try DefinitionFixture.rules().first { $0.id == "pay-9" })).total == 5)
        // The value limit keeps the most frequent.
        let wide = try DefinitionFixture.rule("wide", "ProductListViewController-UIView-UIButton&*-*-*")
        let top = try store.definitionCounts(wide, valueLimit: 1)
        #expect(top.values.count == 1)
        #expect(top.values.first?.count == all.filter { DefinitionFixture.selects(wide, $0, since: nil, until: nil) }.count)
    }

    @Test(arguments: FixtureStore.allCases) func aHeatmapCountsEveryInteractionOnEachExactPath(_ kind: FixtureStore) throws {
        let store = try DefinitionFixture.store(kind)
        defer { store.close() }
        let all = try DefinitionFixture.allEvents(store)
        let paths = ShopTraffic.pages.enumerated().map { "\($0.element)-UIView-UIButton&0-0-\($0.offset)" }
            + ["CartViewController-UIView-UIButton&0-0-9", "Nowhere&0", "HomeViewController-UIView-UIButton&0-0-0"]
        for version in [nil, "2.0", "9.9"] as [String?] {
            for range in DefinitionFixture.ranges {
                var expected: [String: Int] = [:]
                for e in all where e.appKey == "shop" && (version == nil || e.appVersion == version) {
                    guard let p = e.event.path, paths.contains(p) else { continue }
                    if let s = range.since, e.time < s { continue }
                    if let u = range.until, e.time >= u { continue }
                    expected[p, default: 0] += 1
                }
                let heat = try store.heatmap(appKey: "shop", appVersion: version, paths: paths, since: range.since, until: range.until)
                let label = "\(kind) \(version ?? "any") \(range)"
                #expect(Dictionary(uniqueKeysWithValues: heat.map { ($0.path, $0.count) }) == expected, "\(label)")
                // In the order asked, each once, none with nothing.
                var order = paths
                var seen: Set<String> = []
                order = order.filter { expected[$0] != nil && seen.insert($0).inserted }
                #expect(heat.map(\.path) == order, "\(label)")
                if version == nil && range.since == nil { #expect(heat.count == 5) }
            }
        }
        #expect(try store.heatmap(appKey: "shop", paths: []) == [])
    }
}
