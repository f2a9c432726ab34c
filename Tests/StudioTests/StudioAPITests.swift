import EventModel
import Foundation
import HTTPServer
import Studio
import Synchronization
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
        #expect(f.send(.get, "/api/apps", token: "wrong", from: "10.0.0.5").status.code == 401)
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
        let wrong = f.send(.post, "/login", token: nil, json: ["token": "nope"], from: "10.0.0.5")
        #expect(wrong.status.code == 401)
        #expect(wrong.headers["Set-Cookie"] == nil)
        let form = f.send(.post, "/login", token: nil, contentType: "application/x-www-form-urlencoded", raw: "token=nope", from: "10.0.0.6")
        #expect(form.status.code == 401)
        #expect(form.text.contains("role=\"alert\""))
        // Logout ends the session on the server, not only in the browser.
        let out = f.send(.post, "/logout", token: nil, cookie: pair, json: [:])
        #expect(out.status.code == 200)
        #expect(out.json == ["session": "ended"])
        #expect(out.headers["Set-Cookie"]?.contains("Max-Age=0") == true)
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 401)
    }

    /// Issue 36 point 8: logout is a write like every other, so a page of another origin cannot end the session.
    @Test func logoutIsAWriteLikeEveryOther() throws {
        let login = f.send(.post, "/login", token: nil, json: ["token": "admin-secret"])
        let pair = String(try #require(login.headers["Set-Cookie"]).split(separator: ";")[0])
        // A plain form POST, as any page can send: refused, the session goes on.
        for contentType in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"] {
            let form = f.send(.post, "/logout", token: nil, cookie: pair, contentType: contentType, raw: "")
            #expect(form.status.code == 415)
            #expect(form.headers["Set-Cookie"] == nil)
        }
        #expect(f.send(.post, "/logout", token: nil, cookie: pair).status.code == 415)
        // JSON from a page of another origin (another port of this host): refused too.
        let other = f.send(
            .post, "/logout", token: nil, cookie: pair, json: [:],
            headers: [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:9999"), ("Sec-Fetch-Site", "same-site")])
        #expect(other.status.code == 403)
        #expect(other.json?["error"] == "forbidden")
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 200)
        // The studio's own page (same origin) logs out.
        let own = f.send(
            .post, "/logout", token: nil, cookie: pair, json: [:],
            headers: [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")])
        #expect(own.status.code == 200)
        #expect(f.send(.get, "/api/apps", token: nil, cookie: pair).status.code == 401)
    }

    @Test func writesFromAnotherOriginAreRefusedBeforeAnythingIsChecked() {
        let foreign: [[(String, String)]] = [
            [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:9999")],
            [("Host", "127.0.0.1:8080"), ("Origin", "null")],
            [("Host", "127.0.0.1:8080"), ("Origin", "https://127.0.0.1:8080")],  // another scheme
            [("Host", "127.0.0.1:8080"), ("Sec-Fetch-Site", "cross-site")],
            [("Host", "127.0.0.1:8080"), ("Sec-Fetch-Site", "same-site")],
        ]
        for headers in foreign {
            #expect(f.send(.post, "/api/rules", json: Self.rowsRule(), headers: headers).status.code == 403)
            #expect(f.send(.delete, "/api/rules/product-row", headers: headers).status.code == 403)
            #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"], headers: headers).status.code == 403)
        }
        #expect(f.backend.state.withLock { $0.publishes } == 0)
        // Reads are not writes; the page itself and clients without Origin (curl) pass.
        #expect(f.send(.get, "/api/apps", headers: foreign[0]).status.code == 200)
        // Sec-Fetch-Site decides when a browser sends it: the login form of a no-referrer page says `Origin: null`.
        let form = [("Host", "127.0.0.1:8080"), ("Origin", "null"), ("Sec-Fetch-Site", "same-origin")]
        #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"], headers: form).status.code == 200)
        #expect(f.send(.post, "/api/rules", json: Self.rowsRule(), headers: [("Sec-Fetch-Site", "same-site"), ("Origin", "http://127.0.0.1:8080"), ("Host", "127.0.0.1:8080")]).status.code == 403)
        let own = [("Host", "127.0.0.1:8080"), ("Origin", "http://127.0.0.1:8080"), ("Sec-Fetch-Site", "same-origin")]
        #expect(f.send(.post, "/api/rules", json: Self.rowsRule(), headers: own).status.code == 201)
        #expect(f.send(.post, "/api/apps/shop/circle", json: ["minutes": 5]).status.code == 200)
    }

    @Test func overTLSTheCookieIsSecure() throws {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json")
        let request = HTTPRequest(method: .post, target: "/login", headers: headers, body: Array(#"{"token":"admin-secret"}"#.utf8), isSecure: true)
        let cookie = try #require(f.handler.respond(to: request).headers["Set-Cookie"])
        #expect(cookie.hasSuffix("; Secure"))
        #expect(cookie.contains("SameSite=Strict") && cookie.contains("HttpOnly"))
    }

    /// Issue 36 point 7: wrong tokens are throttled per address, and guessing never locks a right token out.
    @Test func wrongTokensAreThrottledPerAddress() throws {
        let guesser = "10.0.0.66"
        #expect(f.send(.get, "/api/apps", token: "guess", from: guesser).status.code == 401)
        // The next token from that address waits 250 ms, then 500 ms, 1 s … up to 8 s.
        let early = f.send(.get, "/api/apps", token: "guess", from: guesser)
        #expect(early.status.code == 429)
        #expect(early.headers["Retry-After"] == "1")
        #expect(early.json?["reason"]?.stringValue?.contains(guesser) == true)
        for delay: Int64 in [250, 500, 1000, 2000, 4000, 8000, 8000] {
            f.clock.advance(delay - 1)
            #expect(f.send(.get, "/api/apps", token: "guess", from: guesser).status.code == 429)
            f.clock.advance(1)
            #expect(f.send(.get, "/api/apps", token: "guess", from: guesser).status.code == 401)
        }
        // Meanwhile the admin, at another address, logs in and uses the token at once.
        #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"], from: "10.0.0.7").status.code == 200)
        #expect(f.send(.get, "/api/apps", from: "10.0.0.7").status.code == 200)
        // The guesser's own address with the right token waits its turn, then gets in and is cleared.
        #expect(f.send(.get, "/api/apps", from: guesser).status.code == 429)
        f.clock.advance(8000)
        #expect(f.send(.get, "/api/apps", from: guesser).status.code == 200)
        #expect(f.send(.get, "/api/apps", token: "guess", from: guesser).status.code == 401)
        #expect(f.send(.get, "/api/apps", token: "guess", from: guesser).status.code == 429)  // 250 ms again
    }

    @Test func theGlobalCeilingSlowsGuessingFromManyAddressesButNeverLocksOutARightToken() {
        // 100 addresses, one wrong token each: the global ceiling (100 a minute) is reached.
        for i in 0..<100 { #expect(f.send(.get, "/api/apps", token: "guess", from: "10.1.0.\(i)").status.code == 401) }
        f.clock.advance(10_000)  // past every address's own delay
        // A guessing address now waits until its wrong token is a minute old.
        let slowed = f.send(.get, "/api/apps", token: "guess", from: "10.1.0.3")
        #expect(slowed.status.code == 429)
        #expect(slowed.headers["Retry-After"] == "50")
        // An address that sent no wrong token is still checked: the right token gets in (login and bearer).
        #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"], from: "10.9.9.9").status.code == 200)
        #expect(f.send(.get, "/api/apps", from: "10.9.9.8").status.code == 200)
        // And 10 a minute forever from one address never keep the admin out.
        for _ in 0..<30 {
            _ = f.send(.get, "/api/apps", token: "guess", from: "10.2.0.1")
            f.clock.advance(6_000)
        }
        #expect(f.send(.post, "/login", token: nil, json: ["token": "admin-secret"], from: "10.9.9.10").status.code == 200)
        // A minute after the last wrong one, the ceiling no longer holds anyone back.
        f.clock.advance(60_000)
        #expect(f.send(.get, "/api/apps", from: "10.1.0.3").status.code == 200)
    }

    @Test func noCORSAndWritesNeedJSON() {
        let preflight = f.send(.options, "/api/rules", token: nil)
        #expect(preflight.status.code == 405)
        // A browser's preflight from another origin: the same 405, no CORS header.
        let foreign = f.send(.options, "/api/rules", token: nil, headers: [("Origin", "http://127.0.0.1:9999"), ("Sec-Fetch-Site", "same-site")])
        #expect(foreign.status.code == 405)
        #expect(!foreign.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        #expect(!preflight.headers.contains { $0.name.lowercased().hasPrefix("access-control-") })
        let form = f.send(.post, "/api/rules", contentType: "application/x-www-form-urlencoded", raw: "id=x")
        #expect(form.status.code == 415)
        #expect(form.json?["error"]?.stringValue == "unsupported-media-type")
        // A DELETE without a body needs no content type (no other page can send a DELETE); with a body it is JSON.
        #expect(f.send(.delete, "/api/rules/x").status.code == 404)
        #expect(f.send(.delete, "/api/rules/x", contentType: "text/plain", raw: "id=x").status.code == 415)
        #expect(f.send(.delete, "/api/rules/x", contentType: "application/json; charset=utf-8").status.code == 404)
        #expect(f.send(.post, "/api/rules").status.code == 415)  // a POST always says JSON
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

    @Test func pagesAreListedOnceWithTheirVersionsAndPicturesNewestFirst() throws {
        #expect(
            f.send(.get, "/api/pages?app=shop").json
                == ["pages": [["page": "HomeViewController", "name": "HomeViewController", "versions": ["1.1.0", "1.0.0"], "snapshots": [7, 3]]]])
        // A page's name is the visible title of its newest picture's root, when it has one.
        f.backend.state.withLock { s in
            s.snapshots[1].tree = #"{"type":"Shop.HomeViewController","path":"HomeViewController&0","title":"Our shop"}"#
        }
        #expect(f.send(.get, "/api/pages?app=shop").json?["pages"]?.arrayValue?.first?["name"] == "Our shop")
        // A name a person gives comes first; "" takes it away again.
        let named = f.send(.put, "/api/pages/HomeViewController?app=shop", json: ["name": "  Home  "])
        #expect(named.json == ["page": "HomeViewController", "name": "Home"])
        #expect(f.send(.get, "/api/pages?app=shop").json?["pages"]?.arrayValue?.first?["name"] == "Home")
        #expect(f.send(.put, "/api/pages/HomeViewController?app=shop", json: ["name": ""]).json?["name"] == .null)
        #expect(f.send(.get, "/api/pages?app=shop").json?["pages"]?.arrayValue?.first?["name"] == "Our shop")
        #expect(f.send(.put, "/api/pages/HomeViewController?app=shop", json: ["name": 3]).status.code == 400)
        #expect(f.send(.put, "/api/pages/HomeViewController", json: ["name": "x"]).status.code == 400)
        #expect(f.send(.put, "/api/pages/HomeViewController?app=shop", json: ["name": .string(String(repeating: "n", count: 257))]).status.code == 400)
        #expect(f.send(.get, "/api/pages?app=news").json == ["pages": []])
        #expect(f.send(.get, "/api/pages").status.code == 400)
    }

    @Test func snapshotsNewestFirstWithTreeImageAndHeatmap() throws {
        let list = try #require(f.send(.get, "/api/snapshots?app=shop").json?["snapshots"]?.arrayValue)
        #expect(list.map { $0["id"] } == [7, 3])
        #expect(list[0] == ["id": 7, "appKey": "shop", "appVersion": "1.1.0", "page": "HomeViewController",
            "capturedAt": .int(StudioFixture.now - 1000), "width": 400, "height": 300, "receivedAt": .int(StudioFixture.now - 900),
            "device": .null])
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

    /// Issue 40 point 1 (studio.md §5 `pick`): a point on a label inside a button or a row means the button or the row.
    @Test func pickChoosesTheElementInteractedWithAndTheTreeSaysSo() throws {
        // Row 0's button (its own frame), row 0's label (inside the row: the row), the page's corner.
        let button = try #require(f.send(.get, "/api/snapshots/7/pick?x=310&y=50").json)
        #expect(button["path"] == .string(StudioFixture.buttonPath.replacingOccurrences(of: "%d", with: "0")))
        #expect(button["event"] == "ButtonClick")
        #expect(button["interactions"] == 0)
        let label = try #require(f.send(.get, "/api/snapshots/7/pick?x=20.5&y=50").json)
        #expect(label == ["path": .string(StudioFixture.rowPath + "0"), "interactions": 3, "event": "ListItemClick"])
        #expect(f.send(.get, "/api/snapshots/7/pick?x=5&y=5").json?["path"] == "HomeViewController-UIView&0-0")  // nothing interacted with: the deepest
        #expect(f.send(.get, "/api/snapshots/7/pick?x=500&y=5").status.code == 404)
        #expect(f.send(.get, "/api/snapshots/7/pick?x=a&y=5").status.code == 400)
        #expect(f.send(.get, "/api/snapshots/7/pick?x=1").status.code == 400)
        // The tree the page gets carries the same judgement.
        let tree = try #require(f.send(.get, "/api/snapshots/7").json?["tree"])
        let row = try #require(tree["children"]?[0]?["children"]?[0]?["children"]?[0])
        #expect(row["pick"] == true)
        #expect(row["interactions"] == 3)
        #expect(row["children"]?[0]?["pick"] == nil)  // the label
        #expect(row["children"]?[1]?["pick"] == true)  // the button
        #expect(tree["pick"] == nil)  // the page
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

        let deleted = f.send(.delete, "/api/rules/product-row")  // no body, no content type: as a browser's fetch sends it
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
