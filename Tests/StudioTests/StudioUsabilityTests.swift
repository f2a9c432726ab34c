import EventModel
import EventStore
import Foundation
import HTTPServer
import Studio
import Synchronization
import Testing
import TestSupport

/// The studio used as a product person uses it (issue 41's usability test), in real headless
/// Chromium (Selenium, Tests/StudioTests/browser/studio_tasks.py) over the real HTTP server and
/// the GTK-shaped shop of `ShopStudio`: create, rename, edit, delete, heatmap numbers against
/// the stored clicks, content on rows, recorded values, keys and layout, circle mode's sign of
/// life, and logout against a page of another origin.
@Suite(.serialized) struct StudioUsabilityTests {
    static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Runs `tasks` in one browser over a fresh shop studio; `during` runs beside the browser.
    static func drive(
        _ tasks: [String], extra: [String] = [], during: (@Sendable (ShopStudio, String) -> Void)? = nil, setup: ((ShopStudio) -> Void)? = nil
    ) throws -> (ShopStudio, JSONValue) {
        let shop = ShopStudio(now: now())
        setup?(shop)
        let server = HTTPService(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: shop.handler)
        let address = try server.start()
        defer { server.stop() }
        let helper = DispatchSemaphore(value: 0)
        if let during {
            Thread.detachNewThread {
                during(shop, "http://\(address)")
                helper.signal()
            }
        } else {
            helper.signal()
        }
        let outcome = try BrowserDriver.run(
            driver: "studio_tasks.py", arguments: ["--url", "http://\(address)", "--token", ShopStudio.token, "--tasks", tasks.joined(separator: ",")] + extra)
        _ = helper.wait(timeout: .now() + 30)
        #expect(outcome.exitCode == 0, "\(outcome.seen.jsonText)\n\(outcome.stderr.suffix(3000))")
        #expect(outcome.seen["consoleErrors"] == [], "\(outcome.seen["consoleErrors"]?.jsonText ?? "")")
        return (shop, outcome.seen)
    }

    // MARK: Issue 41 point 1: delete

    @Test(.timeLimit(.minutes(3))) func deleteRemovesTheDefinition() throws {
        let (shop, seen) = try Self.drive(["delete"])
        let d = try #require(seen["delete"])
        #expect(d["status"]?.stringValue?.hasPrefix("Deleted \u{201c}Open product from list\u{201d}") == true, "\(d.jsonText)")
        #expect(d["listedAfter"] == false)
        #expect(shop.rule("home-open-product") == nil)
    }

    // MARK: Point 2: choosing while editing, before/after counts; rename

    @Test(.timeLimit(.minutes(3))) func choosingWhileEditingStartsANewDefinitionAndAChangeShowsItsCounts() throws {
        let (shop, seen) = try Self.drive(["edit"])
        let e = try #require(seen["edit"])
        // Choosing Share on the product page while "Open product from list" was edited: a new one, said so.
        #expect(e["titleAfterChoosing"] == "New definition")
        #expect(e["note"]?.stringValue?.contains("\u{201c}Open product from list\u{201d} is not changed") == true, "\(e.jsonText)")
        #expect(e["firstSaved"] == .string(ShopStudio.detailShare))
        #expect(e["editedAfterFirstSave"] == .string(ShopStudio.row + "*"))
        #expect(shop.rule("home-open-product")?["viewPath"] == .string(ShopStudio.row + "*"))
        // Rename: no question asked (what it counts is the same), the new name listed, the id kept.
        #expect(e["renameConfirm"] == false)
        #expect(shop.rule("share-on-product-page")?["name"] == "Share a product")
        #expect(e["listedName"] == "Share a product")
        // "Count this element instead": Add to cart; the save first says the counts before and after.
        #expect(e["confirmBefore"] == "1")
        #expect(e["confirmAfter"] == "3")
        #expect(e["confirmText"]?.stringValue?.contains("1 interaction before, 3 interactions after") == true, "\(e.jsonText)")
        #expect(e["storedAtConfirm"] == .string(ShopStudio.detailShare))  // nothing saved before the answer
        #expect(shop.rule("share-on-product-page")?["viewPath"] == .string(ShopStudio.detailAdd))
        #expect(shop.rules.count == 2)
    }

    // MARK: Point 3: the heatmap

    @Test(.timeLimit(.minutes(3))) func theHeatmapCountsInteractionsOnlyAndScalesOnTappableElements() throws {
        let (_, seen) = try Self.drive(["heatmap"])
        let h = try #require(seen["heatmap"])
        // The product page: Share's one tap (not its kvc_error), Add to cart's three; no box for the page's enters and leaves.
        #expect(h["detail"] == .object(JSONObject([(ShopStudio.detailShare, 1), (ShopStudio.detailAdd, 3)])), "\(h.jsonText)")
        #expect(h["detailMax"] == "3")
        #expect(h["detailUnit"] == "interactions")
        // The cart page is one box: outlined with its count, not a solid fill, and it does not set the scale.
        #expect(h["cart"] == .object(JSONObject([("GtkBox(cart)&0", 2)])))
        #expect(h["cartOutlined"] == true)
        #expect(h["cartFilled"] == false)
        // The chosen element's outline is of no colour the heat uses (yellow to red, no blue).
        #expect((h["chosenBlue"]?.intValue ?? 0) > 100, "\(h.jsonText)")
        #expect(h["heatBlues"]?.arrayValue?.allSatisfy { $0.intValue == 0 } == true, "\(h.jsonText)")
        // Beside the heatmap, how far down the page people get (the back end's scrollmap).
        #expect(h["homeScrollDepth"] == "Scroll depth of 5 visits (4 scrolled): 25%: 4, 50%: 3, 75%: 2, 100%: 1", "\(h.jsonText)")
    }

    // MARK: Point 4: content on rows

    @Test(.timeLimit(.minutes(3))) func aRowsContentIsTheTextSeenInItAndNothingCarriesOver() throws {
        let (shop, seen) = try Self.drive(["content"])
        let c = try #require(seen["content"])
        // "Wherever Kettle is shown" on the row: the text of its label, read through child.label as the shop's rule does.
        #expect(c["rowContent"] == "Kettle")
        #expect(c["rowKeyPath"] == "child.label")
        #expect(c["rowKeyName"] == "productName")
        #expect(c["rowPreview"] == "3", "\(c.jsonText)")
        #expect(c["rowNote"]?.stringValue?.contains("as shown in the picture of") == true)
        let saved = try #require(shop.rule("kettle-anywhere"))
        #expect(saved["content"] == "Kettle")
        #expect(saved["keyPath"] == "child.label")
        // The ♥ button: prefilled from the picture, which says when it was captured; the preview lists what taps stored.
        #expect(c["favContent"] == "♥")
        #expect(c["favNote"]?.stringValue?.hasPrefix("As shown in the picture of") == true)
        #expect(c["favPreview"] == "0")
        #expect(c["favWhy"] == "Without \u{201c}♥\u{201d} it counts 2 interactions: the taps stored show \u{201c}♡\u{201d}.", "\(c.jsonText)")
        // Content typed for one definition does not carry over into the next.
        #expect(c["typedBefore"] == "Teapot only")
        #expect(c["contentAfterNew"] != "Teapot only")
        #expect(c["keyPathAfterNew"] == "")
    }

    // MARK: Point 5: also record

    @Test(.timeLimit(.minutes(3))) func alsoRecordOffersTheValuesSeenInAndAroundTheElement() throws {
        let (shop, seen) = try Self.drive(["record"])
        let r = try #require(seen["record"])
        let detail = (r["detailOptions"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(detail.contains { $0.hasPrefix("\u{201c}Kettle\u{201d}") && $0.hasSuffix("parent.parent.parent.label") }, "\(detail)")
        #expect(detail.first?.hasPrefix("\u{201c}Share\u{201d}") == true)  // its own text first
        let home = (r["homeOptions"]?.arrayValue ?? []).compactMap { $0.stringValue }
        #expect(home.contains { $0.hasPrefix("\u{201c}Kettle\u{201d}") && $0.hasSuffix("parent.parent.label") }, "\(home)")
        #expect(r["keyName"] == "product")
        let saved = try #require(shop.rule("share-with-product"))
        #expect(saved["keyPath"] == "parent.parent.parent.label")
        #expect(saved["keyName"] == "product")
        #expect(r["ownPropertiesFolded"] == true)
    }

    // MARK: Point 6: keys and layout

    @Test(.timeLimit(.minutes(4))) func keysAndLayoutServeTheFormAndSayWhatHappened() throws {
        let (_, seen) = try Self.drive(["keys"])
        let k = try #require(seen["keys"])
        #expect(k["radioAfterArrow"] == "rows")  // ↑ on the choice went to the parent, not to another choice
        #expect(k["chosenAfterArrow"] == .string(ShopStudio.rowPath(0)))
        #expect((k["formTop"]?.intValue ?? 10_000) < 500, "\(k.jsonText)")
        #expect(k["propsOpen"] == false)
        #expect(k["formInViewAfterEdit"] == true, "\(k.jsonText)")
        #expect(k["sideMutationsWhilePointing"] == 0)
        #expect(k["pointed"]?.stringValue?.contains("Share") == true)
        #expect(k["factsAfterPageSwitch"] == 0)
        #expect(k["statusAfterError"]?.stringValue?.contains("Saved") == false, "\(k.jsonText)")
        #expect(k["errorShown"]?.stringValue?.contains("in use") == true, "\(k.jsonText)")
        #expect(k["loginCodeLines"] == 1)
        #expect(k["previewUnitOfOne"] == "interaction")
        #expect(k["previewAxis"]?.arrayValue?.count == 2)
        #expect(k["trendAxis"]?.arrayValue?.count == 2)
        #expect(k["values"]?.arrayValue?.allSatisfy { !($0.stringValue ?? "\"").contains("\"") } == true, "\(k.jsonText)")
        #expect(k["values"]?.arrayValue?.first?.stringValue == "Share \u{2014} 1 interaction")
        #expect(k["sameNote"]?.stringValue?.contains("\u{201c}Open product from list\u{201d}") == true, "\(k.jsonText)")
    }

    // MARK: Point 7: circle mode's sign of life

    @Test(.timeLimit(.minutes(3))) func circleModeSaysWhichDevicesSentAPictureSinceAndWhen() throws {
        let (_, seen) = try Self.drive(["circle"]) { shop, _ in
            // Once the page turned circle mode on, a running app sends a picture of its home page.
            for _ in 0..<600 {
                if shop.backend.state.withLock({ $0.apps.first?.circleModeUntil }) != nil { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Thread.sleep(forTimeInterval: 1)
            // A device that names itself (received now; its own clock is an hour behind), and one of
            // an agent that names none.
            shop.backend.state.withLock { s in
                for (id, device) in [(Int64(20), "d-feedfacefeedfacefeedfacefeedface" as String?), (21, nil)] {
                    var summary = s.snapshots[0].summary
                    summary.id = id
                    summary.appVersion = "1.3.0"
                    summary.capturedAt = Self.now() - 3_600_000
                    summary.receivedAt = Self.now() - (device == nil ? 500 : 0)  // listed last received first
                    summary.device = device
                    s.snapshots.append(StudioSnapshot(summary: summary, png: s.snapshots[0].png, tree: s.snapshots[0].tree))
                }
            }
        }
        let c = try #require(seen["circle"])
        #expect(c["before"]?.stringValue?.hasPrefix("No picture since") == true, "\(c.jsonText)")
        #expect(c["afterPictures"] == "2")
        #expect(c["devices"] == ["d-feedfacefeedfacefeedfacefeedface", ""], "\(c.jsonText)")
        let after = c["after"]?.stringValue ?? ""
        #expect(after.contains("from 2 devices"), "\(after)")
        #expect(after.contains("device d-feedfacefeedfacefeedfacefeedface (version 1.3.0): 1 picture, the last at"), "\(after)")
        #expect(after.contains("a device that names none (version 1.3.0): 1 picture, the last at"), "\(after)")
        #expect(after.contains("GtkBox(home)"))
        // The pictures that came before circle mode was turned on (the shop's own, a minute old) are not counted.
        #expect(!after.contains("d-0123456789abcdef0123456789abcdef"), "\(after)")
    }

    // MARK: Issue 40 point 2: pages by name, once each, with their pictures per version

    @Test(.timeLimit(.minutes(3))) func eachPageIsListedOnceWithAStripOfItsPicturesPerVersion() throws {
        let (shop, seen) = try Self.drive(["pages"], setup: { shop in
            // The home page again in 1.2.0 (older), and in a release 1.3.0 (newest).
            shop.backend.state.withLock { s in
                let home = s.snapshots[0]
                for (id, version, age) in [(Int64(9), "1.2.0", Int64(120_000)), (30, "1.3.0", 1_000)] {
                    var summary = home.summary
                    summary.id = id
                    summary.appVersion = version
                    summary.capturedAt = shop.now - age
                    summary.receivedAt = shop.now - age
                    s.snapshots.append(StudioSnapshot(summary: summary, png: home.png, tree: home.tree))
                }
                s.snapshots.sort { $0.summary.receivedAt > $1.summary.receivedAt }
            }
        })
        let p = try #require(seen["pages"])
        // The definition of the rows: a crop of the first row on the newest picture of its page (1.3.0's), 480 × 80 at 0.2.
        let c = try #require(p["crop"])
        #expect(c["snapshot"] == "30", "\(c.jsonText)")
        #expect(c["path"] == .string(ShopStudio.row + "0"), "\(c.jsonText)")
        #expect(c["size"] == [98, 18], "\(c.jsonText)")  // 96 × 16 inside its border
        #expect(c["loaded"] == true)
        #expect(c["top"] == "-10px" && c["width"] == "96px", "\(c.jsonText)")
        #expect(c["name"] == "Open product from list")
        // Five pictures, three pages: each once, the newest first, by name.
        #expect(p["entries"] == ["GtkBox(home)", "GtkBox(detail)", "GtkBox(cart)"], "\(p.jsonText)")
        #expect(p["homeStrip"] == ["1.3.0", "1.2.0"], "\(p.jsonText)")
        #expect(p["homeCounts"] == ["1 picture", "2 pictures"], "\(p.jsonText)")
        #expect(p["homeSnapshots"] == ["30", "11"], "\(p.jsonText)")
        // Choosing a version's picture opens it; the version filter keeps that version's pictures only.
        #expect(p["openedTitle"]?.stringValue?.hasPrefix("GtkBox(home) \u{2014} 1.3.0") == true, "\(p.jsonText)")
        #expect(p["filteredStrip"] == ["1.2.0"], "\(p.jsonText)")
        // Named by a person: stored for the app and page, shown with its root beside it.
        #expect(p["renameStartsWith"] == "GtkBox(home)")
        #expect(p["status"] == "Named the page \u{201c}Home page\u{201d}", "\(p.jsonText)")
        #expect(p["nameAfterLogin"] == "Home page")
        #expect(p["rootHint"] == " GtkBox(home)")
        #expect(shop.backend.state.withLock { $0.pageNames["shop"]?["GtkBox(home)"] } == "Home page")
    }

    // MARK: Issue 36 point 8: logout from another page

    @Test(.timeLimit(.minutes(3))) func aPageOnAnotherPortCannotEndTheSessionAndLogOutStillWorks() throws {
        // The other page: a form posting to the studio's /logout as soon as it loads.
        let studioPort = Mutex("")
        struct Other: HTTPHandler {
            let target: @Sendable () -> String
            func respond(to request: HTTPRequest) -> HTTPResponse {
                .html(
                    "<!DOCTYPE html><html><body><form id=\"f\" method=\"post\" action=\"\(target())/logout\"><input name=\"x\" value=\"1\"></form>"
                        + "<script>document.getElementById('f').submit()</script></body></html>")
            }
        }
        let other = HTTPService(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: Other(target: { studioPort.withLock { $0 } }))
        let otherAddress = try other.start()
        defer { other.stop() }
        let (_, seen) = try Self.drive(["logout"], extra: ["--other", "http://\(otherAddress)/"]) { _, url in
            studioPort.withLock { $0 = url }
        }
        let l = try #require(seen["logout"])
        #expect(l["otherPageSubmitted"] == true, "\(l.jsonText)")
        #expect(l["stillLoggedIn"] == true, "\(l.jsonText)")
        #expect(l["afterLogout"] == "login")
        #expect(l["apiAfterLogout"] == 401)
    }
}

extension StudioUsabilityTests {
    // MARK: Issue 40 point 1: pointing means the element interacted with

    @Test(.timeLimit(.minutes(3))) func pointingChoosesTheElementInteractedWithAsTheAPIDoes() throws {
        let (_, seen) = try Self.drive(["pick"])
        let p = try #require(seen["pick"])
        let points = p["points"]?.arrayValue ?? []
        #expect(points.count == 4)
        // The page and GET /api/snapshots/{S}/pick choose the same node at every point.
        for point in points { #expect(point["page"] == point["api"]?["path"], "\(point.jsonText)") }
        // Share's label: the button, its one stored tap (its kvc_error is none), a ButtonClick.
        #expect(points.first?["page"] == .string(ShopStudio.detailShare))
        #expect(points.first?["api"]?["interactions"] == 1)
        #expect(points.first?["api"]?["event"] == "ButtonClick")
        #expect(points.first?["facts"] == "1 stored interaction (ButtonClick) in the last 30 days")
        #expect(points.first?["event"] == "ButtonClick")
        // A row's name and a price label inside a row: the row, a ListItemClick.
        #expect(points.dropFirst().first?["page"] == .string(ShopStudio.rowPath(0)))
        #expect(points.dropFirst().first?["api"]?["interactions"] == 3)
        #expect(points.dropFirst(2).first?["page"] == .string(ShopStudio.rowPath(1)))
        #expect(points.dropFirst(2).first?["event"] == "ListItemClick")
        // The page's empty corner: the page itself.
        #expect(points.last?["page"] == "GtkBox(detail)&0")
        // A preview of 0 says why.
        #expect(p["zero"] == "0")
        #expect(p["zeroWhy"]?.stringValue?.hasPrefix("No interaction is stored on this element") == true, "\(p.jsonText)")
    }
}
