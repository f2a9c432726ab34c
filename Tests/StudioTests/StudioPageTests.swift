import EventModel
import Foundation
import HTTPServer
import Studio
import Testing
import TestSupport

/// The studio page in real headless Chromium over the real HTTP server and the in-memory back
/// end: log in, hover an element, circle a row, "every row like this", preview, save, listed.
@Suite(.serialized) struct StudioPageTests {
    @Test(.timeLimit(.minutes(3))) func circlingARowInChromiumSavesADefinition() throws {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let f = StudioFixture(now: now)
        let server = HTTPService(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: f.handler)
        let address = try server.start()
        defer { server.stop() }
        let outcome = try BrowserDriver.run(
            url: "http://\(address)", token: StudioFixture.token, app: "shop", page: "HomeViewController", name: "Product row",
            screenshot: nil)
        #expect(outcome.exitCode == 0, "\(outcome.seen.jsonText)\n\(outcome.stderr)")
        let seen = outcome.seen
        #expect(seen["cookieHttpOnly"] == true)
        #expect(seen["scriptSeesCookie"] == false)
        #expect(seen["hovered"]?.stringValue?.hasPrefix("HomeViewController") == true)
        #expect(seen["chosen"] == .string(StudioFixture.rowPath + "0"))
        #expect(seen["pattern"] == .string(StudioFixture.rowPath + "*"))
        #expect(seen["previewTotal"] == 4)  // rows 0 and 1's clicks of the last 30 days
        #expect(seen["highlighted"] == 3)  // the three rows on the picture
        #expect(seen["listedName"] == "Product row")
        #expect(seen["warning"] == false)
        #expect(seen["heatBoxes"] == 2)
        #expect(seen["consoleErrors"] == [])
        // What the page saved is what the API lists.
        let rules = f.send(.get, "/api/rules?app=shop").json?["rules"]
        #expect(rules?[0]?["id"] == "product-row")
        #expect(rules?[0]?["viewPath"] == .string(StudioFixture.rowPath + "*"))
        #expect(rules?[0]?["viewEvent"] == "ListItemClick")
    }
}
