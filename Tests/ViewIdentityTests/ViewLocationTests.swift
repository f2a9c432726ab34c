import Testing
import ViewIdentity

/// `ViewLocation`: a node's placement and its path found in one walk up the tree, as the GTK hooks
/// compute them once per interaction (docs/viewpath.md §2 and §4).
@Suite struct ViewLocationTests {
    /// The placement of `location` as one comparable line: code controller, page, cell's type.
    static func summary(_ p: ViewPlacement) -> String {
        "\(p.codeController)|\(p.page ?? "-")|\(p.cell?.typeName ?? "-")"
    }

    @Test func aWindowBelowTheControllerEndsThePlacementButNotThePath() {
        let button = node("UIButton")
        let cell = node("Shop.ProductCell", .cell, indexPath: (0, 4), [node("UIView", [node("UIView"), button])])
        let root = node(
            "Shop.HomeViewController", .controller, alias: "home",
            [node("UIKit.UIWindow", .window, [node("UITableView", [cell])])])
        withExtendedLifetime(root) {
            let location = ViewLocation(of: button)
            #expect(location.path.canonical == "HomeViewController(home)-UIWindow-UITableView-ProductCell-UIView-UIButton&0-0-0-0:4-0-0")
            #expect(Self.summary(location.placement) == "UIWindow|-|Shop.ProductCell")
            #expect(location.path == ViewPath(of: button))
            #expect(Self.summary(location.placement) == Self.summary(ViewPlacement(of: button)))
        }
    }

    @Test func theControllerEndsBoth() {
        let label = node("UILabel")
        let root = node(
            "UINavigationController", .controller,
            [node("Shop.DetailViewController", .controller, alias: "gift", [node("UIView"), node("UIView", [node("UILabel"), label])])])
        withExtendedLifetime(root) {
            let location = ViewLocation(of: label)
            #expect(location.path.canonical == "DetailViewController(gift)-UIView-UILabel&0-1-1")
            #expect(Self.summary(location.placement) == "DetailViewController|DetailViewController(gift)|-")
        }
    }

    @Test func withoutControllerOrWindowTheTopEndsBoth() {
        let leaf = node("UIView")
        let root = node("Shop.Panel", [node("UIView"), node("UIStackView", [node("UIView"), leaf])])
        withExtendedLifetime(root) {
            let location = ViewLocation(of: leaf)
            #expect(location.path.canonical == "Panel-UIStackView-UIView&0-0-1")
            #expect(Self.summary(location.placement) == "Panel|-|-")
            #expect(Self.summary(ViewLocation(of: root).placement) == "Panel|-|-")
            #expect(ViewLocation(of: root).path.canonical == "Panel&0")
        }
    }

    /// A toolkit that counts same-named siblings itself (as GTK counts its widgets by type) is
    /// asked, once per element below the root, and its answers are the indexes.
    @Test func aToolkitsOwnSiblingCountIsWhatThePathUses() {
        final class CountingNode: ViewNode {
            let typeName: String
            let role: ViewRole
            weak var parent: CountingNode?
            var children: [CountingNode] = []
            var asked = 0
            init(_ typeName: String, _ role: ViewRole = .view) {
                self.typeName = typeName
                self.role = role
            }
            var parentNode: (any ViewNode)? { parent }
            var childNodes: [any ViewNode] { children }
            func add(_ c: CountingNode) {
                c.parent = self
                children.append(c)
            }
            func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int {
                asked += 1
                return 7
            }
        }
        let root = CountingNode("Page", .controller)
        let box = CountingNode("Box")
        let button = CountingNode("Button")
        root.add(box)
        box.add(button)
        #expect(ViewLocation(of: button).path.canonical == "Page-Box-Button&0-7-7")
        #expect(root.asked == 0 && box.asked == 1 && button.asked == 1)
    }
}
