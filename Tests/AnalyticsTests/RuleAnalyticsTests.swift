import Analytics
import Collector
import CommandSupport
import Definitions
import EventModel
import EventStore
import KVCConfig
import Testing
import TestSupport

/// Funnels, retention tables, reports and exports by definition (`rule:ID`, `--rule ID`) on both
/// stores, over events stored before the rules were published.
@Suite(.timeLimit(.minutes(5))) struct RuleAnalyticsTests {
    /// The home page's button: every click on it is kind click:HomeViewController#tap in the traffic.
    static let homeButton = "HomeViewController-UIView-UIButton&0-0-0"

    /// The rows a funnel or retention reads, built by brute force from every stored event.
    static func bruteRows(_ all: [StoredEvent], kinds: [EventKind], rules: [String: KVCRule], appKey: String) -> [ActorEvent] {
        var numbers: [String: Int] = [:]
        var rows: [ActorEvent] = []
        for e in all where e.appKey == appKey {
            guard let actor = e.event.user ?? e.event.device else { continue }
            for (i, k) in kinds.enumerated() {
                let hit =
                    if let id = k.ruleID { DefinitionFixture.selects(rules[id]!, e, since: nil, until: nil) } else {
                        k.type == e.event.type.rawValue && k.name == e.event.name
                    }
                guard hit else { continue }
                let n = numbers[actor] ?? numbers.count
                numbers[actor] = n
                rows.append(ActorEvent(kind: i, actor: n, time: e.time, seq: e.seq))
            }
        }
        return rows.sorted { ($0.time, $0.seq, $0.kind) < ($1.time, $1.seq, $1.kind) }
    }

    @Test(arguments: FixtureStore.allCases) func ruleStepsCountTheRulesEvents(_ kind: FixtureStore) throws {
        let store = try DefinitionFixture.store(kind)
        defer { store.close() }
        let all = try DefinitionFixture.allEvents(store)
        let rules = Dictionary(uniqueKeysWithValues: try DefinitionFixture.rules().map { ($0.id, $0) })
        let shop = EventFilter(appKey: "shop")
        let home = EventKind(type: "page_enter", name: "HomeViewController")
        let pay = EventKind(type: "click", name: "PAY")
        // A rule that selects exactly one kind's events counts what that kind counts (on the store's fast path).
        let byRule = FunnelDefinition(steps: [home, .rule("home-button"), pay], withinMilliseconds: 3_600_000)
        let byKind = FunnelDefinition(steps: [home, EventKind(type: "click", name: "HomeViewController#tap"), pay], withinMilliseconds: 3_600_000)
        let ruled = try store.funnel(byRule, filter: shop, rules: rules)
        let plain = try store.funnel(byKind, filter: shop)
        #expect(ruled.steps.map(\.actors) == plain.steps.map(\.actors))
        #expect(ruled.steps[1].actors > 0)
        #expect(ruled.steps.map(\.step) == byRule.steps)
        // Version ranges, contents and repeated rules: against rows built by brute force.
        let mixed = FunnelDefinition(steps: [.rule("any-button"), .rule("detail-tap"), .rule("pay"), .rule("any-button")], withinMilliseconds: 86_400_000)
        var counter = FunnelCounter(mixed)
        let kinds = counter.query(shop).kinds
        for r in Self.bruteRows(all, kinds: kinds, rules: rules, appKey: "shop") { counter.add(r) }
        let expected = counter.result()
        #expect(try store.funnel(mixed, filter: shop, rules: rules) == expected)
        #expect(expected.steps[0].actors > 0 && expected.steps[2].actors > 0)
        // Retention: a rule start, a plain return, and the same rule for both.
        for definition in [
            RetentionDefinition(start: .rule("home-button"), returning: EventKind(type: "app_start", name: "launch"), periods: 4),
            RetentionDefinition(start: .rule("any-button"), returning: .rule("any-button"), periods: 4),
        ] {
            var retention = RetentionCounter(definition)
            for r in Self.bruteRows(all, kinds: retention.query(shop).kinds, rules: rules, appKey: "shop") { retention.add(r) }
            let want = retention.result()
            #expect(try store.retention(definition, filter: shop, rules: rules) == want)
            #expect(!want.cohorts.isEmpty)
        }
        // A step naming a rule that was not given is an error, not an empty count.
        #expect(throws: StoreError.self) { try store.funnel(byRule, filter: shop, rules: [:]) }
    }

    func collector(_ args: String...) -> (code: ExitCode, out: String, err: String) {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        return (code, io.standardOutput, io.standardError)
    }

    @Test(arguments: FixtureStore.allCases) func commandsByRuleCountEventsStoredBeforeItWasPublished(_ kind: FixtureStore) throws {
        let location = try kind.location()
        let store = try DefinitionFixture.store(at: location, kind)
        let all = try DefinitionFixture.allEvents(store)
        // Published only now, after every event was stored.
        let rules = try DefinitionFixture.rules()
        _ = try store.publish(rules.map(StoredRule.init), sampleRate: 1)
        store.close()
        let rule = rules.first { $0.id == "detail-tap" }!
        let selected = all.filter { DefinitionFixture.selects(rule, $0, since: nil, until: nil) }
        #expect(selected.count > 20)

        // rules list shows a definition's name, and '-' for the key path it does not have.
        let list = collector("rules", "list", "--db", location, "--app", "shop")
        let payLine = list.out.split(separator: "\n").first { $0.hasPrefix("shop  pay ") }.map(String.init) ?? ""
        #expect(payLine.hasSuffix("Definition pay") && payLine.contains(" - "), "\(list.out)")

        // export --rule: exactly the rule's events, in storage order.
        let export = collector("export", "--db", location, "--rule", "detail-tap")
        #expect(export.code == .success, "\(export.err)")
        let exported = export.out.split(separator: "\n").compactMap { try? TrackEvent(json: JSONValue.parse(String($0))) }
        #expect(exported.map(\.id) == selected.map(\.event.id))

        // report --rule: every section over those events only.
        let report = collector("report", "--db", location, "--rule", "detail-tap", "--format", "json")
        #expect(report.code == .success, "\(report.err)")
        let json = try JSONValue.parse(report.out)
        #expect(json["rule"] == "detail-tap")
        #expect(json["totals"]?["events"]?.intValue == Int64(selected.count))
        #expect(json["totals"]?["batches"]?.intValue == 0)
        let types = json["eventTypes"]?.arrayValue ?? []
        #expect(types.count == 1 && types.first?["type"] == "click")
        let coverage = json["rules"]?.arrayValue ?? []
        #expect(coverage.count == 1 && coverage.first?["covered"]?.intValue == Int64(selected.count))
        let days = (json["days"]?.arrayValue ?? []).compactMap { $0["events"]?.intValue }.reduce(0, +)
        #expect(days == Int64(selected.count))
        let table = collector("report", "--db", location, "--rule", "detail-tap")
        #expect(table.out.contains("only the events of rule detail-tap (Definition detail-tap) of app shop"))

        // The whole report's coverage and a report by rule count values matching content too.
        let bySku = all.filter { DefinitionFixture.selects(rules.first { $0.id == "pay-sku-9" }!, $0, since: nil, until: nil) }.count
        #expect(bySku == 12)
        let whole = try JSONValue.parse(collector("report", "--db", location, "--format", "json").out)
        let skuCoverage = (whole["rules"]?.arrayValue ?? []).first { $0["id"] == "pay-sku-9" }
        #expect(skuCoverage?["covered"]?.intValue == Int64(bySku))
        let skuReport = try JSONValue.parse(collector("report", "--db", location, "--rule", "pay-sku-9", "--format", "json").out)
        #expect(skuReport["totals"]?["events"]?.intValue == Int64(bySku))

        // funnel and retention with rule steps give the library's answers.
        let funnel = collector(
            "funnel", "--db", location, "--app", "shop", "--step", "page_enter:ProductDetailViewController", "--step", "rule:detail-tap",
            "--format", "json")
        #expect(funnel.code == .success, "\(funnel.err)")
        let reopened = try kind.open(location)
        defer { reopened.close() }
        let byRule = Dictionary(uniqueKeysWithValues: rules.map { ($0.id, $0) })
        let expected = try reopened.funnel(
            FunnelDefinition(steps: [EventKind(type: "page_enter", name: "ProductDetailViewController"), .rule("detail-tap")]),
            filter: EventFilter(appKey: "shop"), rules: byRule)
        let steps = try JSONValue.parse(funnel.out)["steps"]?.arrayValue ?? []
        #expect(steps.map { $0["actors"]?.intValue ?? -1 } == expected.steps.map { Int64($0.actors) })
        #expect(steps.map { $0["step"] } == ["page_enter:ProductDetailViewController", "rule:detail-tap"])
        #expect(expected.steps[1].actors > 0)
        let retention = collector(
            "retention", "--db", location, "--app", "shop", "--start", "rule:home-button", "--return", "rule:detail-tap", "--format", "json")
        #expect(retention.code == .success, "\(retention.err)")
        let cohorts = try JSONValue.parse(retention.out)["cohorts"]?.arrayValue ?? []
        let want = try reopened.retention(
            RetentionDefinition(start: .rule("home-button"), returning: .rule("detail-tap")), filter: EventFilter(appKey: "shop"), rules: byRule)
        #expect(cohorts.map { $0["actors"]?.intValue ?? -1 } == want.cohorts.map { Int64($0.actors) })
        #expect(!want.cohorts.isEmpty)

        // An unknown id: a clear error naming the ids there are.
        for args in [
            ["report", "--db", location, "--rule", "nope"], ["export", "--db", location, "--rule", "nope"],
            ["funnel", "--db", location, "--app", "shop", "--step", "rule:nope", "--step", "click:PAY"],
            ["retention", "--db", location, "--app", "shop", "--start", "rule:nope", "--return", "click:PAY"],
        ] {
            let io = CapturedStreams()
            let code = CollectorCLI.group.main(args, io: io)
            #expect(code == .failure, "\(args)")
            #expect(io.standardError.contains("no published rule 'nope'"), "\(args): \(io.standardError)")
            #expect(io.standardError.contains("the published ids are: any-button, detail-tap, home-button, home-tap, "), "\(args): \(io.standardError)")
        }
        // A rule of another app than --app is unknown there.
        let other = collector("export", "--db", location, "--app", "news", "--rule", "detail-tap")
        #expect(other.code == .failure && other.err.contains("the published ids are: news-home"), "\(other.err)")
    }
}
