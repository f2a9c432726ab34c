import Analytics
import Collector
import CommandSupport
import Definitions
import EventModel
import EventStore
import KVCConfig
import Studio
import Testing
import TestSupport

/// The studio's insights (`POST /api/insights/…`, answered by `CollectorStudioBackend.insight`)
/// give the command line's numbers on the same data, on both stores: the funnel and retention
/// answers equal `funnel --format json` and `retention --format json` to the value; a trend's
/// days are `report --rule`'s, its weeks their sums, its versions a split of the same events.
@Suite(.timeLimit(.minutes(5))) struct StudioInsightsTests {
    /// The `i`th element of an array value, nil when there is none.
    func item(_ value: JSONValue?, _ i: Int) -> JSONValue? { value?.arrayValue?.dropFirst(i).first }

    func collector(_ args: [String]) throws -> JSONValue {
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(args, io: io)
        #expect(code == .success, "\(args): \(io.standardError)")
        return try JSONValue.parse(io.standardOutput)
    }

    @Test(arguments: FixtureStore.allCases) func theStudiosNumbersAreTheCommandLines(_ kind: FixtureStore) throws {
        let location = try kind.location()
        let store = try DefinitionFixture.store(at: location, kind)
        let all = try DefinitionFixture.allEvents(store)
        let rules = try DefinitionFixture.rules() + [try MultiElementDefinitionTests.either()]
        _ = try store.publish(rules.map(StoredRule.init), sampleRate: 1)
        let backend = CollectorStudioBackend(store: store, pictures: try #require(store as? any SnapshotStore))
        defer { store.close() }
        let since = DefinitionFixture.start + 86_400_000
        let range = StudioTimeRange(since: since, until: nil)

        let funnel = try backend.insight(
            .funnel, body: ["steps": ["page_enter:HomeViewController", "either-button", "detail-tap"], "within": "1d", "by": "user"], range: range)
        let cliFunnel = try collector([
            "funnel", "--db", location, "--app", "shop", "--since", String(since), "--step", "page_enter:HomeViewController",
            "--step", "rule:either-button", "--step", "rule:detail-tap", "--within", "1d", "--format", "json",
        ])
        // The same document (parsed again, so 1 and 1.0 read alike).
        #expect(try JSONValue.parse(funnel.jsonText) == cliFunnel)
        #expect((item(funnel["steps"], 1)?["actors"]?.intValue ?? 0) > 0)

        let retention = try backend.insight(
            .retention, body: ["start": "home-button", "return": "either-button", "period": "week", "periods": 2, "by": "device"], range: range)
        let cliRetention = try collector([
            "retention", "--db", location, "--app", "shop", "--since", String(since), "--start", "rule:home-button", "--return",
            "rule:either-button", "--period", "week", "--periods", "2", "--by", "device", "--format", "json",
        ])
        #expect(try JSONValue.parse(retention.jsonText) == cliRetention)
        #expect((retention["cohorts"]?.arrayValue ?? []).count > 0)

        // A trend per day: report --rule's days; per week: their sums; by version: the same events split.
        let whole = StudioTimeRange(since: nil, until: nil)
        let report = try collector(["report", "--db", location, "--rule", "detail-tap", "--format", "json"])
        var reportDays: [String: Int64] = [:]
        for d in report["days"]?.arrayValue ?? [] { reportDays[d["day"]?.stringValue ?? ""] = d["events"]?.intValue }
        let byDay = try backend.insight(.trend, body: ["rules": ["detail-tap"], "interval": "day", "since": .null], range: whole)
        let points = item(item(byDay["rules"], 0)?["series"], 0)?["points"]?.arrayValue ?? []
        var trendDays: [String: Int64] = [:]
        for p in points where (p["count"]?.intValue ?? 0) > 0 { trendDays[p["start"]?.stringValue ?? ""] = p["count"]?.intValue }
        #expect(trendDays == reportDays)
        #expect(reportDays.count > 2)
        let byWeek = try backend.insight(.trend, body: ["rules": ["detail-tap"], "interval": "week"], range: whole)
        let weeks = item(item(byWeek["rules"], 0)?["series"], 0)?["points"]?.arrayValue ?? []
        #expect(weeks.compactMap { $0["count"]?.intValue }.reduce(0, +) == reportDays.values.reduce(0, +))
        #expect(weeks.allSatisfy { p in UTCDay(p["start"]?.stringValue ?? "").map { $0.weekStart == $0 } ?? false })
        let byVersion = try backend.insight(.trend, body: ["rules": ["either-button"], "interval": "day", "breakdown": "appVersion"], range: whole)
        let either = try MultiElementDefinitionTests.either()
        var expected: [String: Int64] = [:]
        for e in all where DefinitionFixture.selects(either, e, since: nil, until: nil) { expected[e.appVersion ?? "", default: 0] += 1 }
        var got: [String: Int64] = [:]
        for s in item(byVersion["rules"], 0)?["series"]?.arrayValue ?? [] { got[s["key"]?.stringValue ?? ""] = s["total"]?.intValue }
        #expect(got == expected)
        #expect(got.count == 3)  // 1.0, 2.0 and the events without a version

        // A question that is none is the page's mistake, said plainly.
        for (kind, body) in [
            (StudioInsight.funnel, ["steps": ["detail-tap"]] as JSONValue), (.funnel, ["steps": ["nope", "detail-tap"]]),
            (.retention, ["start": "detail-tap", "return": "detail-tap", "period": "month"]), (.trend, ["rules": []]),
            (.trend, ["rules": ["detail-tap"], "interval": "hour"]),
        ] {
            #expect(throws: StudioError.self) { try backend.insight(kind, body: body, range: whole) }
        }
    }
}
