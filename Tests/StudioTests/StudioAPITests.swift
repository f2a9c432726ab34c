import EventModel
import HTTPServer
import Studio
import Testing

/// The studio's routes over the in-memory back end: access, the API's answers, rule edits.
@Suite struct StudioAPITests {
    let f = StudioFixture()

    // MARK: Access

    @Test func apiNeedsTheTokenOrASession() {
        let none = f.send(.get, "/api/apps", token: nil)
        #expect(none.status.code == 401)
        #expect(none.json?["error"]?.stringValue == "unauthorized")
        #expect(none.json?["reason"]?.stringValue?.contains("/login") == true)
        #expect(none.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        #expect(f.send(.get, "/api/apps", token: "wrong").status.code == 401)
        #expect(f.send(.get, "/api/apps", cookie: "autotrack_studio=made-up").status.code == 200)  // the bearer token suffices
        #expect(f.send(.get, "/api/apps", token: nil, cookie: "autotrack_studio=made-up").status.code == 401)
        #expect(f.send(.get, "/api/apps").status.code == 200)
    }

    @Test func loginSetsAStrictHttpOnlyCookieThatAuthorizesUntilItExpires() throws {
        let login = f.send(.post, "/login", token: nil, contentType: "application/x-www-form-urlencoded", raw: "token=admin-secret")
        #expect(login.status.code == 303)
        #expect(login.headers["Location"] == "/")
        let cookie = try #require(login.headers["Set-Cookie"])
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(!cookie.contains("Secure"))  // plain HTTP here; TLS adds it
        let pair = String(cookie.split(separator: ";")[0])
        #expect(pair.hasPrefix("autotrack_studio=") && pair.count > 40)
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 200)
        #expect(f.send(.get, "/", token: nil, cookie: pair).status.code == 200)
        // An hour later (the fixture's lifetime) the session has ended.
        f.clock.advance(3_600_001)
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 401)
        #expect(f.send(.get, "/", token: nil, cookie: pair).headers["Location"] == "/login")
    }

    @Test func loginTakesJSONAndRefusesAWrongToken() throws {
        let ok = f.send(.post, "/login", token: nil, json: ["token": "admin-secret"])
        #expect(ok.status.code == 200)
        let pair = String(try #require(ok.headers["Set-Cookie"]).split(separator: ";")[0])
        let wrong = f.send(.post, "/login", token: nil, json: ["token": "nope"])
        #expect(wrong.status.code == 401)
        #expect(wrong.headers["Set-Cookie"] == nil)
        let form = f.send(.post, "/login", token: nil, contentType: "application/x-www-form-urlencoded", raw: "token=nope")
        #expect(form.status.code == 401)
        #expect(form.text.contains("role=\"alert\""))
        // Logout ends the session on the server, not only in the browser.
        let out = f.send(.post, "/logout", token: nil, cookie: pair, contentType: "application/x-www-form-urlencoded", raw: "")
        #expect(out.status.code == 303)
        #expect(out.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 401)
    }

    @Test func overTLSTheCookieIsSecure() throws {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        let request = HTTPRequest(method: .post, target: "/login", headers: headers, body: Array(#"{"token":"admin-secret"}"#.utf8), isSecure: true)
        let cookie = try #require(f.handler.respond(to: request).headers["Set-Cookie"])
        #expect(cookie.hasSuffix("; Secure"))
        #expect(cookie.contains("SameSite=Strict") && cookie.contains("HttpOnly"))
    }

    @Test func wrongTokensAreThrottled() {
        for _ in 0..<10 { #expect(f.send(.get, "/api/apps", token: "guess").status.code == 401) }
        let throttled = f.send(.post, "/login", token: nil, json: ["token": "admin-secret"])
        #expect(throttled.status.code == 429)
        f.clock.advance(61_000)
        #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"]).status.code == 200)
    }

    @Test func noCORSAndWritesNeedJSON() {
        let preflight = f.send(.options, "/api/rules", token: nil)
        #expect(preflight.status.code == 405)
        #expect(!preflight.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        let form = f.send(.post, "/api/rules", contentType: "application/x-www-form-urlencoded", raw: "id=x")
        #expect(form.status.code == 415)
        #expect(form.json?["error"]?.stringValue == "unsupported-media-type")
        #expect(f.send(.delete, "/api/rules/x").status.code == 415)
        #expect(f.send(.delete, "/api/rules/x", contentType: "application/json; charset=utf-8").status.code == 404)
        #expect(f.send(.post, "/api/rules", contentType: "text/plain", raw: "{}").status.code == 415)
    }

    @Test func everyAnswerCarriesTheSecurityHeaders() throws {
        for response in [f.send(.get, "/login", token: nil), f.send(.get, "/api/apps"), f.send(.get, "/studio.js", token: nil), f.send(.get, "/nope")] {
            let csp = try #require(response.headers["Content-Security-Policy"])
            #expect(csp.contains("default-src 'self'"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(!csp.contains("unsafe-inline"))
            #expect(response.headers["X-Content-Type-Options"] == "nosniff")
            #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        }
    }

    @Test func thePageAndItsFilesComeFromTheBinaryWithoutInlineScript() {
        #expect(f.send(.get, "/", token: nil).status.code == 303)
        let login = f.send(.get, "/login", token: nil)
        #expect(login.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(login.text.contains("name=\"token\""))
        let js = f.send(.get, "/studio.js", token: nil)
        #expect(js.headers["Content-Type"]?.hasPrefix("text/javascript") == true)
        #expect(js.text.contains("/api/preview"))
        #expect(f.send(.get, "/studio.css", token: nil).headers["Content-Type"]?.hasPrefix("text/css") == true)
        let page = f.send(.post, "/login", token: nil, json: ["token": "admin-secret"])
        let cookie = String((page.headers["Set-Cookie"] ?? "").split(separator: ";")[0])
        let html = f.send(.get, "/", token: nil, cookie: cookie).text
        #expect(html.contains("<script src=\"/studio.js\""))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("style=\""))
        #expect(!html.contains("http://") && !html.contains("https://"))
    }

    // MARK: Apps and pictures

    @Test func appsAndCircleMode() throws {
        let apps = try #require(f.send(.get, "/api/apps").json?["apps"]?.arrayValue)
        #expect(apps.count == 1)
        #expect(apps[0]["appKey"] == "shop")
        #expect(apps[0]["versions"] == ["1.0.0", "1.1.0"])
        #expect(apps[0]["snapshots"] == 2)
        #expect(apps[0]["circleModeUntil"] == .null)
        let on = f.send(.post, "/api/apps/shop/circle", json: ["minutes": 30])
        #expect(on.status.code == 200)
        #expect(on.json == ["appKey": "shop", "circleModeUntil": .int(StudioFixture.now + 30 * 60_000)])
        #expect(f.send(.get, "/api/apps").json?["apps"]?[0]?["circleModeUntil"] == .int(StudioFixture.now + 30 * 60_000))
        // Past its end it reads as off.
        f.clock.advance(31 * 60_000)
        #expect(f.send(.get, "/api/apps").json?["apps"]?[0]?["circleModeUntil"] == .null)
        #expect(f.send(.post, "/api/apps/shop/circle", json: ["minutes": 0]).json?["circleModeUntil"] == .null)
        #expect(f.send(.post, "/api/apps/shop/circle", json: ["minutes": -1]).status.code == 400)
        #expect(f.send(.post, "/api/apps/shop/circle", json: ["minutes": 100_000]).status.code == 400)
    }

    @Test func snapshotsNewestFirstWithTreeImageAndHeatmap() throws {
        let list = try #require(f.send(.get, "/api/snapshots?app=shop").json?["snapshots"]?.arrayValue)
        #expect(list.map { $0["id"] } == [7, 3])
        #expect(list[0] == ["id": 7, "appKey": "shop", "appVersion": "1.1.0", "page": "HomeViewController",
            "capturedAt": .int(StudioFixture.now - 1000), "width": 400, "height": 300])
        #expect(f.send(.get, "/api/snapshots?app=shop&version=1.0.0").json?["snapshots"]?.arrayValue?.map { $0["id"] } == [3])
        #expect(f.send(.get, "/api/snapshots").status.code == 400)
        let one = try #require(f.send(.get, "/api/snapshots/7").json)
        #expect(one["tree"]?["children"]?[0]?["children"]?[0]?["children"]?.arrayValue?.count == 3)
        #expect(one["page"] == "HomeViewController")
        let image = f.send(.get, "/api/snapshots/7/image")
        #expect(image.headers["Content-Type"] == "image/png")
        #expect(image.body == StudioFixture.png)
        #expect(f.send(.get, "/api/snapshots/99").status.code == 404)
        #expect(f.send(.get, "/api/snapshots/abc/image").status.code == 404)
        // Heatmap: the rows' clicks in the default 30 days (row 2's click is 100 days old), tree order.
        let heat = f.send(.get, "/api/snapshots/7/heatmap").json
        #expect(heat == ["elements": [["path": .string(StudioFixture.rowPath + "0"), "count": 3], ["path": .string(StudioFixture.rowPath + "1"), "count": 1]]])
        let all = f.send(.get, "/api/snapshots/7/heatmap?since=2020-01-01").json?["elements"]?.arrayValue
        #expect(all?.count == 3)
        let narrow = f.send(.get, "/api/snapshots/7/heatmap?since=\(StudioFixture.now - StudioFixture.day - 1)&until=\(StudioFixture.now)").json
        #expect(narrow?["elements"]?.arrayValue?.count == 1)
        #expect(f.send(.get, "/api/snapshots/7/heatmap?since=yesterday").status.code == 400)
        #expect(f.send(.get, "/api/snapshots/7/heatmap?since=2026-11-20&until=2026-11-19").status.code == 400)
    }

    // MARK: Preview and definitions

    static func rowsRule(id: String? = "product-row", content: String? = nil) -> JSONValue {
        var o = JSONObject()
        if let id { o["id"] = .string(id) }
        o["name"] = "Product row"
        o["appKey"] = "shop"
        o["appVersion"] = "*"
        o["viewEvent"] = "ListItemClick"
        o["viewPath"] = .string(StudioFixture.rowPath + "*")
        if let content { o["content"] = .string(content) }
        return .object(o)
    }

    @Test func previewCountsBackwardsAndSaysWhatThePictureSelects() throws {
        let p = try #require(f.send(.post, "/api/preview", json: Self.rowsRule(id: nil)).json)
        #expect(p["total"] == 4)
        #expect(p["days"]?.arrayValue?.map { $0["count"] } == [1, 2, 1])
        #expect(p["values"]?[0] == ["value": "Gift card", "count": 3])
        #expect(p["selects"] == .array((0..<3).map { .string(StudioFixture.rowPath + "\($0)") }))
        // "Wherever Tea is shown": one row on the picture, its one click.
        let tea = try #require(f.send(.post, "/api/preview", json: Self.rowsRule(content: "Tea")).json)
        #expect(tea["total"] == 1)
        #expect(tea["selects"] == [.string(StudioFixture.rowPath + "1")])
        // A pattern from a page without a picture selects nothing.
        var other = Self.rowsRule().objectValue!
        other["viewPath"] = "CartViewController-UIButton&0-0"
        #expect(f.send(.post, "/api/preview", json: .object(other)).json?["selects"] == [])
        var bad = other
        bad["viewPath"] = "not a path&"
        let refused = f.send(.post, "/api/preview", json: .object(bad))
        #expect(refused.status.code == 400)
        #expect(refused.json?["reason"]?.stringValue?.contains("viewPath") == true)
    }

    @Test func definitionsAreCreatedEditedCountedAndDeletedThroughTheAppsSet() throws {
        #expect(f.send(.get, "/api/rules?app=shop").json == ["etag": .null, "rules": []])
        let created = f.send(.post, "/api/rules", json: Self.rowsRule())
        #expect(created.status.code == 201)
        let etag1 = try #require(created.json?["etag"]?.stringValue)
        #expect(created.json?["rule"]?["id"] == "product-row")
        #expect(f.send(.post, "/api/rules", json: Self.rowsRule()).status.code == 409)
        var invalid = Self.rowsRule(id: "x").objectValue!
        invalid["viewEvent"] = nil
        #expect(f.send(.post, "/api/rules", json: .object(invalid)).status.code == 400)
        #expect(f.send(.post, "/api/rules", json: Self.rowsRule(id: "tea", content: "Tea")).status.code == 201)
        let listed = try #require(f.send(.get, "/api/rules?app=shop").json)
        #expect(listed["rules"]?.arrayValue?.map { $0["id"] } == ["product-row", "tea"])
        #expect(listed["etag"]?.stringValue != etag1)

        // Rename keeps the place in the set; the etag changes.
        var renamed = Self.rowsRule().objectValue!
        renamed["name"] = "Any product"
        let put = f.send(.put, "/api/rules/product-row", json: .object(renamed))
        #expect(put.status.code == 200)
        let rules = f.send(.get, "/api/rules?app=shop").json?["rules"]?.arrayValue
        #expect(rules?.map { $0["name"] } == ["Any product", "Product row"])
        #expect(f.send(.put, "/api/rules/other", json: .object(renamed)).status.code == 400)  // ids never change
        #expect(f.send(.put, "/api/rules/missing", json: Self.rowsRule(id: "missing")).status.code == 404)

        let counts = try #require(f.send(.get, "/api/rules/tea/counts").json)
        #expect(counts["total"] == 1)
        #expect(counts["selects"] == nil)
        #expect(f.send(.get, "/api/rules/product-row/counts?since=2020-01-01").json?["total"] == 5)

        let deleted = f.send(.delete, "/api/rules/product-row", contentType: "application/json")
        #expect(deleted.status.code == 200)
        #expect(f.send(.get, "/api/rules?app=shop").json?["rules"]?.arrayValue?.map { $0["id"] } == ["tea"])
        // The last rule goes too: the app's set is published empty.
        #expect(f.send(.delete, "/api/rules/tea", contentType: "application/json").status.code == 200)
        #expect(f.send(.get, "/api/rules?app=shop").json?["rules"] == [])
        #expect(f.backend.state.withLock { $0.publishes } == 5)
    }

    @Test func unknownRoutesAndMethods() {
        #expect(f.send(.get, "/api/nothing").status.code == 404)
        let wrong = f.send(.delete, "/api/apps", contentType: "application/json")
        #expect(wrong.status.code == 405)
        #expect(wrong.json?["error"] == "method-not-allowed")
        #expect(f.send(.post, "/api/preview", raw: "not json", contentTypeJSON: true).status.code == 400)
    }
}

extension StudioFixture {
    func send(_ method: HTTPMethod, _ target: String, raw: String, contentTypeJSON: Bool) -> HTTPResponse {
        send(method, target, contentType: contentTypeJSON ? "application/json" : nil, raw: raw)
    }
}
