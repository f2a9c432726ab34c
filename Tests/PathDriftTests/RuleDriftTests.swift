import Foundation
import KVCConfig
import PathDrift
import Testing
import ViewIdentity

@testable import PathDrift

typealias T = DriftTrees

@Suite struct RuleDriftTests {
    @Test func anUnchangedBuildIsOkWithItsMatchCounts() throws {
        let d = try T.drift(new: [T.detailBefore, T.home()], old: [T.detailBefore, T.home()])
        #expect(d.values.allSatisfy { $0.status == .ok && $0.suggestion == nil && $0.candidates.isEmpty })
        #expect(d["detail-share"]?.matches == 1)
        #expect(d["home-open"]?.matches == 3)
        #expect(d["home-fav"]?.matches == 3)
        #expect(d["detail-enter"]?.matches == 1)
    }

    @Test func aWrapperInsertedIsFoundThroughIdAndTitle() throws {
        let after = T.detail([T.image, T.name, T.node("UIStackView", [T.fav, T.share, T.cart])])
        let d = try T.drift(new: [after], old: [T.detailBefore])
        let share = try #require(d["detail-share"])
        #expect(share.status == .broken)
        #expect(share.matches == 0)
        let s = try #require(share.suggestion)
        #expect(s.viewPath == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-1")
        #expect(s.signals.contains(.id) && s.signals.contains(.title) && s.signals.contains(.keyPath))
        #expect(!s.signals.contains(.path))  // one element added: 0.75
        #expect(share.candidates.first == s)
        // docs/drift.md's worked example: 15.75 / 18, then Add to cart and Fav.
        #expect(share.candidates.map(\.score) == [0.88, 0.46, 0.43])
        #expect(d["detail-cart"]?.suggestion?.viewPath == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-2")
        #expect(d["detail-enter"]?.status == .ok)
    }

    @Test func aDefinitionThatReadsNothingIsFoundWithoutTheKeyPathSignal() throws {
        let after = T.detail([T.image, T.name, T.node("UIStackView", [T.fav, T.share, T.cart])])
        let plan = try ConfigLoader.parse(
            text: """
                {"rules": [{"id": "share-def", "name": "Share", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
                 "viewPath": "DetailViewController-UIView-UIButton&0-0-1"}]}
                """, file: "defs.json")
        let drift = PathDrift(trees: try T.trees([after]), baseline: try T.trees([T.detailBefore])).check(plan)
        let share = try #require(drift.first)
        #expect(share.status == .broken)
        let s = try #require(share.suggestion)
        #expect(s.viewPath == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-1")
        #expect(s.signals.contains(.id) && s.signals.contains(.title) && !s.signals.contains(.keyPath))
    }

    @Test func withoutBaselineThreeLikeButtonsAreTooCloseToCall() throws {
        let after = T.detail([T.image, T.name, T.node("UIStackView", [T.fav, T.share, T.cart])])
        let d = try T.drift(new: [after], old: [])
        let share = try #require(d["detail-share"])
        #expect(share.status == .broken)
        #expect(share.suggestion == nil)
        #expect(share.absence == .tooClose)
        #expect(share.candidates.count == 3)
        #expect(share.candidates[0].viewPath == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-1")
        #expect(share.candidates[0].score - share.candidates[1].score < PathDrift.margin)
        // The cart rule's own content tells its button apart, baseline or not.
        #expect(d["detail-cart"]?.suggestion?.viewPath == "DetailViewController-UIView-UIStackView-UIButton&0-0-0-2")
        #expect(d["detail-cart"]?.suggestion?.signals.contains(.content) == true)
    }

    @Test func aSiblingOfAnotherTypeInsertedBeforeTheTargetChangesNoPath() throws {
        let price = T.node("UILabel", id: "price", title: "25")
        let after = T.detail([T.image, T.name, T.fav, price, T.share, T.cart])
        let d = try T.drift(new: [after], old: [T.detailBefore])
        #expect(d["detail-share"]?.status == .ok)
        #expect(d["detail-share"]?.matches == 1)
        #expect(d["detail-cart"]?.status == .ok)
    }

    @Test func aSameNamedSiblingInsertedBeforeTheTargetTakesItsIndex() throws {
        let after = T.detail([T.image, T.name, T.fav, T.button("help", "Help"), T.share, T.cart])
        let d = try T.drift(new: [after], old: [T.detailBefore])
        // The old pattern now names the Help button: broken, and the Share button is one index on.
        let share = try #require(d["detail-share"])
        #expect(share.status == .broken)
        #expect(share.matches == 1)
        #expect(share.matchesOtherViews)
        #expect(share.suggestion?.viewPath == "DetailViewController-UIView-UIButton&0-0-2")
        #expect(d["detail-cart"]?.suggestion?.viewPath == "DetailViewController-UIView-UIButton&0-0-3")
    }

    @Test func aRenamedCellClassKeepsTheRowWildcard() throws {
        let d = try T.drift(new: [T.home(cellType: "Shop.ProductListCell")], old: [T.home()])
        let open = try #require(d["home-open"])
        #expect(open.status == .broken)
        #expect(open.suggestion?.viewPath == "HomeViewController-UIView-UITableView-ProductListCell&0-0-0-0:*")
        #expect(open.candidates.count == 1)  // the three rows give one pattern
        let fav = try #require(d["home-fav"]?.suggestion)
        #expect(fav.viewPath == "HomeViewController-UIView-UITableView-ProductListCell-UITableViewCellContentView-UIButton&0-0-0-0:*-0-0")
        #expect(fav.signals.contains(.title))
        // Without a baseline the only list cells are still clearly the ones.
        let alone = try T.drift(new: [T.home(cellType: "Shop.ProductListCell")], old: [])
        #expect(alone["home-open"]?.suggestion?.viewPath == "HomeViewController-UIView-UITableView-ProductListCell&0-0-0-0:*")
    }

    @Test func aRenamedCellClassKeepsTheRulesSection() throws {
        // Two sections whose rows look alike (same buttons); the rule names section 1.
        func table(_ type: String) -> String {
            let cells = (0..<2).flatMap { s in
                (0..<3).map { r in
                    T.node(
                        type, role: "cell", title: "Row \(s)-\(r)", props: T.props(r), indexPath: (s, r),
                        [T.node("UITableViewCellContentView", [T.node("UIButton", title: "Fav", props: T.props(r))])])
                }
            }
            return T.node("Shop.HomeViewController", role: "controller", [T.node("UIView", [T.node("UITableView", cells)])])
        }
        let rules = """
            {"rules": [{"id": "fav-1", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
              "viewPath": "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-1:*-0-0",
              "keyPath": "product.id", "keyName": "productId"}]}
            """
        let plan = try ConfigLoader.parse(text: rules, file: "rules.json")
        let d = PathDrift(trees: try T.trees([table("Shop.ProductListCell")]), baseline: try T.trees([table("Shop.ProductCell")]))
        let fav = try #require(d.check(plan).first)
        #expect(fav.status == .broken)
        #expect(fav.suggestion?.viewPath == "HomeViewController-UIView-UITableView-ProductListCell-UITableViewCellContentView-UIButton&0-0-0-1:*-0-0")
        #expect(fav.candidates.map(\.viewPath).contains { $0.contains("&0-0-0-0:*-0-0") })
    }

    @Test func aControlMovedToAnotherContainerIsFoundByItsTitle() throws {
        let before = T.detail([T.image, T.name, T.button(nil, "Fav"), T.button(nil, "Share"), T.button(nil, "Add to cart")])
        let toolbar = T.node("UIToolbar", [T.button(nil, "Back"), T.button(nil, "Share")])
        let after = T.detail([T.image, T.name, T.button(nil, "Fav"), T.button(nil, "Add to cart"), toolbar])
        let d = try T.drift(new: [after], old: [before])
        let share = try #require(d["detail-share"])
        // The old index now lands on Add to cart; the Share button is in the toolbar.
        #expect(share.status == .broken)
        #expect(share.matchesOtherViews)
        #expect(share.suggestion?.viewPath == "DetailViewController-UIView-UIToolbar-UIButton&0-0-0-1")
        #expect(share.suggestion?.signals.contains(.title) == true)
        #expect(share.suggestion?.signals.contains(.id) == false)
        #expect(d["detail-cart"]?.suggestion?.viewPath == "DetailViewController-UIView-UIButton&0-0-1")
    }

    @Test func aRemovedViewGetsNoSuggestion() throws {
        // The last button gone: nothing matches, and no candidate is that view.
        let noCart = try T.drift(new: [T.detail([T.image, T.name, T.fav, T.share])], old: [T.detailBefore])
        let cart = try #require(noCart["detail-cart"])
        #expect(cart.status == .broken)
        #expect(cart.suggestion == nil)
        #expect(cart.absence == .viewGone)
        #expect(!cart.candidates.isEmpty)
        // The middle button gone: its old index names the cart button, whose id says it is another view.
        let noShare = try T.drift(new: [T.detail([T.image, T.name, T.fav, T.cart])], old: [T.detailBefore])
        let share = try #require(noShare["detail-share"])
        #expect(share.status == .broken)
        #expect(share.matches == 1)
        #expect(share.matchesOtherViews)
        #expect(share.suggestion == nil)
        #expect(share.absence == .viewGone)
        #expect(noShare["detail-cart"]?.suggestion?.viewPath == "DetailViewController-UIView-UIButton&0-0-1")
    }

    @Test func twoEquallyGoodCandidatesGetNoSuggestion() throws {
        // Buttons without ids (as UIKit dumps them): the cart button now in two stacks, top and bottom.
        let before = T.detail([T.image, T.name, T.button(nil, "Fav"), T.button(nil, "Share"), T.button(nil, "Add to cart")])
        let top = T.node("UIStackView", [T.button(nil, "Add to cart")])
        let bottom = T.node("UIStackView", [T.button(nil, "Add to cart")])
        let after = T.detail([T.image, T.name, T.button(nil, "Fav"), T.button(nil, "Share"), top, bottom])
        let d = try T.drift(new: [after], old: [before])
        let cart = try #require(d["detail-cart"])
        #expect(cart.status == .broken)
        #expect(cart.suggestion == nil)
        #expect(cart.absence == .tooClose)
        #expect(cart.candidates.count >= 2)
        #expect(cart.candidates[0].score == cart.candidates[1].score)
        #expect(Set(cart.candidates.prefix(2).map(\.viewPath)) == [
            "DetailViewController-UIView-UIStackView-UIButton&0-0-0-0", "DetailViewController-UIView-UIStackView-UIButton&0-0-1-0",
        ])
    }

    @Test func onlyRulesInRangeAreChecked() throws {
        let d = PathDrift(trees: try T.trees([T.detailBefore]))
        let plan = try T.plan()
        #expect(d.check(plan, appKey: "shop", appVersion: AppVersion("1.0.0")).map(\.rule.id) == [
            "detail-share", "home-open", "home-fav", "detail-enter",
        ])
        #expect(d.check(plan, appKey: "blog").isEmpty)
        // A page rule fits only a controller; the home page is absent here.
        let open = d.check(plan).first { $0.rule.id == "home-open" }
        #expect(open?.candidates.isEmpty == true)
        #expect(open?.absence == .noCandidate)
    }

    @Test func aViewStaysOnItsPageWhileThePageExists() throws {
        // The cart button gone from the detail page; the gift page still has one with its title.
        let gift = T.node(
            "Shop.DetailViewController", role: "controller", props: T.product,
            [T.node("UIView", [T.fav, T.share, T.cart])]
        ).replacingOccurrences(of: #""role":"controller""#, with: #""role":"controller","alias":"gift""#)
        let d = try T.drift(new: [T.detail([T.image, T.name, T.fav, T.share]), gift], old: [T.detailBefore])
        #expect(d["detail-cart"]?.suggestion == nil)
        #expect(d["detail-cart"]?.candidates.allSatisfy { $0.viewPath.hasPrefix("DetailViewController-") } == true)
        // With the page itself renamed, every page is searched.
        let renamed = T.detailBefore.replacingOccurrences(of: "Shop.DetailViewController", with: "Shop.ProductDetailController")
        let moved = try T.drift(new: [renamed], old: [T.detailBefore])
        #expect(moved["detail-cart"]?.suggestion?.viewPath == "ProductDetailController-UIView-UIButton&0-0-2")
        #expect(moved["detail-enter"]?.suggestion?.viewPath == "ProductDetailController&0")
        #expect(moved["detail-enter"]?.pageFound == false)
        #expect(d["detail-cart"]?.pageFound == true)
    }

    @Test func gtkTreesWithTheirExtraMembersAreRead() throws {
        // As `autotrack-agent run --tree-dir` writes a GTK page: path, viewId and frame members, and
        // a repeated builder id numbered `~2`.
        let page = #"{"type":"GtkBox","role":"controller","alias":"cart","path":"GtkBox(cart)&0","viewId":"x","children":["#
            + #"{"type":"GtkButton","id":"buy","title":"Buy","frame":[0,0,80,30],"path":"p","viewId":"y"},"#
            + #"{"type":"GtkButton","id":"buy~2","title":"Buy later","frame":[0,30,80,30]}]}"#
        let rules = """
            {"rules": [{"id": "buy", "appKey": "shop", "appVersion": "*", "viewEvent": "ButtonClick",
              "viewPath": "GtkBox(cart)-GtkButton&0-0", "keyPath": "label", "keyName": "label", "content": "Buy"}]}
            """
        let plan = try ConfigLoader.parse(text: rules, file: "rules.json")
        let d = PathDrift(trees: try T.trees([page]), baseline: try T.trees([page]))
        #expect(d.check(plan).map(\.status) == [.ok])
    }

    @Test func theRoleMustFitTheViewEvent() {
        #expect(ViewEvent.pageEnter.fits(.controller) && !ViewEvent.pageEnter.fits(.view))
        #expect(ViewEvent.listItemClick.fits(.cell) && !ViewEvent.listItemClick.fits(.view))
        #expect(ViewEvent.buttonClick.fits(.view) && !ViewEvent.buttonClick.fits(.cell))
        #expect(ViewEvent.viewTap.fits(.cell) && ViewEvent.viewTap.fits(.view) && !ViewEvent.viewTap.fits(.window))
    }
}
