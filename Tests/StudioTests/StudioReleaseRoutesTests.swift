import EventModel
import HTTPServer
import Studio
import Testing

/// The API of definitions that survive releases and of insights (docs/studio.md), over the fake
/// back end: a definition of two elements previews and selects both; health and insights are
/// routed with their errors said plainly.
@Suite struct StudioReleaseRoutesTests {
    let f = StudioFixture()

    @Test func aDefinitionOfTwoRowsCountsAndSelectsBoth() throws {
        let rule: JSONValue = [
            "id": "two-rows", "name": "Two rows", "appKey": "shop", "appVersion": "*", "viewEvent": "ListItemClick",
            "viewPath": .string(StudioFixture.rowPath + "0"), "alsoViewPaths": [.string(StudioFixture.rowPath + "1")],
        ]
        let preview = f.send(.post, "/api/preview", json: rule)
        #expect(preview.status.code == 200, "\(preview.text)")
        #expect(preview.json?["total"] == 4)  // row 0's three clicks and row 1's one of the last 30 days
        #expect(preview.json?["selects"] == [.string(StudioFixture.rowPath + "0"), .string(StudioFixture.rowPath + "1")])
        #expect(f.send(.post, "/api/rules", json: rule).status.code == 201)
        let health = f.send(.get, "/api/rules/two-rows/health")
        #expect(health.status.code == 200, "\(health.text)")
        let versions = health.json?["versions"]?.arrayValue ?? []
        #expect(versions.count == 1)  // all time: row 0 three times, row 1 once (row 2's click is not its)
        #expect(versions.first?["appVersion"] == "1.1.0" && versions.first?["count"] == 4 && versions.first?["status"] == "ok", "\(health.text)")
        #expect(f.send(.get, "/api/rules/nope/health").status.code == 404)
    }

    @Test func insightsAreRoutedAndTheirErrorsSaid() {
        let unknown = f.send(.post, "/api/insights/paths", json: [:])
        #expect(unknown.status.code == 404)
        #expect(unknown.json?["reason"]?.stringValue?.contains("trend, funnel, retention") == true, "\(unknown.text)")
        // A back end without analytics says so.
        let trend = f.send(.post, "/api/insights/trend", json: ["rules": ["two-rows"]])
        #expect(trend.status.code == 503, "\(trend.text)")
        // Times are checked before anything is asked of the back end.
        for since: JSONValue in ["yesterday", true] {
            let bad = f.send(.post, "/api/insights/funnel", json: ["steps": ["a", "b"], "since": since])
            #expect(bad.status.code == 400, "\(bad.text)")
            #expect(bad.json?["reason"]?.stringValue?.contains("since") == true, "\(bad.text)")
        }
        let backwards = f.send(.post, "/api/insights/retention", json: ["start": "a", "return": "b", "since": "2026-11-20", "until": "2026-11-19"])
        #expect(backwards.status.code == 400, "\(backwards.text)")
        #expect(f.send(.get, "/api/insights/trend").status.code == 405)
        #expect(f.send(.post, "/api/insights/trend", contentType: "text/plain", raw: "{}").status.code == 415)
    }
}
