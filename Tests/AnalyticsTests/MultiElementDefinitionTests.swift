import Analytics
import Collector
import CommandSupport
import Definitions
import EventModel
import EventStore
import KVCConfig
import Testing
import TestSupport
import ViewIdentity

/// A definition that selects several elements (`alsoViewPaths`, docs/studio.md "Definitions that
/// survive releases"): each event counted once, in previews, `report --rule`, `export --rule`,
/// `funnel` and `retention`, on both stores, against a brute-force count.
@Suite(.timeLimit(.minutes(5))) struct MultiElementDefinitionTests {
    /// The home page's button, every button of the product list, and again the home page's
    /// button by a wider pattern (an event it matches twice is one event).
    static func either() throws -> KVCRule {
        var rule = try DefinitionFixture.rule("either-button", "HomeViewController-UIView-UIButton&0-0-0")
        rule.alsoViewPaths = [
            try PathPattern("ProductListViewController-UIView-UIButton&0-0-*"), try PathPattern("HomeViewController-UIView-UIButton&*-*-0"),
        ]
        return rule
    }

    func collector(_ args: String...) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test func theCodecReadsAndWritesTheOtherElements() throws {
        let rule = try Self.either()
        let text = rule.json.jsonText
        #expect(text.contains("\"alsoViewPaths\":[\"ProductListViewController-UIView-UIButton&0-0-*\""))
        let back = try #require(KVCRule(jsonText: text, source: "test"))
        #expect(back.viewPaths == rule.viewPaths)
        // A repeat of viewPath or of another entry is dropped; what is no pattern is refused, saying where.
        let repeated = try #require(
            KVCRule(
                jsonText: #"{"id":"r","appKey":"shop","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","alsoViewPaths":["A&0","B&0","B&0"]}"#,
                source: "test"))
        #expect(repeated.alsoViewPaths.map(\.text) == ["B&0"])
        for bad in [#""alsoViewPaths":"B&0""#, #""alsoViewPaths":["B&x"]"#, #""alsoViewPaths":[3]"#] {
            let json = try JSONValue.parse(#"{"id":"r","appKey":"shop","appVersion":"*","viewEvent":"ButtonClick","viewPath":"A&0","# + bad + "}")
            #expect(throws: ConfigError.self) { try KVCRule.rules(json: [json], source: "test") }
            do {
                _ = try KVCRule.rules(json: [json], source: "test")
            } catch {
                #expect("\(error)".contains("alsoViewPaths"), "\(error)")
            }
        }
        // Without other elements nothing new is written.
        #expect(!(try DefinitionFixture.rule("one", "A&0").json.jsonText.contains("alsoViewPaths")))
    }

    @Test(arguments: FixtureStore.allCases) func eachEventIsCountedOnceEverywhere(_ kind: FixtureStore) throws {
        let location = try kind.location()
        let store = try DefinitionFixture.store(at: location, kind)
        let all = try DefinitionFixture.allEvents(store)
        let rule = try Self.either()
        let selected = all.filter { DefinitionFixture.selects(rule, $0, since: nil, until: nil) }
        // Each pattern alone: their sum counts the home button twice.
        let alone = try rule.viewPaths.map { p in
            var one = rule
            one.viewPath = p
            one.alsoViewPaths = []
            return try store.definitionCounts(one).total
        }
        let home = alone[0]
        #expect(home > 0 && alone[1] > 0 && alone[2] >= home)
        // The wide pattern holds the home button's path; the product list is another page.
        #expect(selected.count == alone[1] + alone[2])
        #expect(try store.definitionCounts(rule).total == selected.count)
        #expect(selected.count < alone.reduce(0, +))
        _ = try store.publish([StoredRule(rule)], sampleRate: 1)
        store.close()

        let export = collector("export", "--db", location, "--rule", "either-button")
        #expect(export.code == .success, "\(export.err)")
        let exported = export.out.split(separator: "\n").compactMap { try? TrackEvent(json: JSONValue.parse(String($0))) }
        #expect(exported.map(\.id) == selected.map(\.event.id))

        let report = try JSONValue.parse(collector("report", "--db", location, "--rule", "either-button", "--format", "json").out)
        #expect(report["totals"]?["events"]?.intValue == Int64(selected.count))
        #expect((report["rules"]?.arrayValue ?? []).first?["covered"]?.intValue == Int64(selected.count))

        let reopened = try kind.open(location)
        defer { reopened.close() }
        let rules = ["either-button": rule]
        let funnel = collector(
            "funnel", "--db", location, "--app", "shop", "--step", "page_enter:HomeViewController", "--step", "rule:either-button",
            "--format", "json")
        #expect(funnel.code == .success, "\(funnel.err)")
        let definition = FunnelDefinition(steps: [EventKind(type: "page_enter", name: "HomeViewController"), .rule("either-button")])
        var counter = FunnelCounter(definition)
        let shop = EventFilter(appKey: "shop")
        for r in RuleAnalyticsTests.bruteRows(all, kinds: counter.query(shop).kinds, rules: rules, appKey: "shop") { counter.add(r) }
        let expected = counter.result()
        #expect(try reopened.funnel(definition, filter: shop, rules: rules) == expected)
        let steps = try JSONValue.parse(funnel.out)["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["actors"]?.intValue ?? -1 } == expected.steps.map { Int64($0.actors) })
        #expect(expected.steps[1].actors > 0)

        let retention = collector(
            "retention", "--db", location, "--app", "shop", "--start", "rule:either-button", "--return", "rule:either-button", "--format", "json")
        #expect(retention.code == .success, "\(retention.err)")
        let again = RetentionDefinition(start: .rule("either-button"), returning: .rule("either-button"))
        var retained = RetentionCounter(again)
        for r in RuleAnalyticsTests.bruteRows(all, kinds: retained.query(shop).kinds, rules: rules, appKey: "shop") { retained.add(r) }
        let want = retained.result()
        #expect(try reopened.retention(again, filter: shop, rules: rules) == want)
        let cohorts = try JSONValue.parse(retention.out)["cohorts"]?.arrayValue ?? []
        #expect(cohorts.map { $0["actors"]?.intValue ?? -1 } == want.cohorts.map { Int64($0.actors) })
        #expect(!want.cohorts.isEmpty)
    }
}
