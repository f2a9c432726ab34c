import Foundation
import TestSupport
import Testing
import ViewIdentity

/// The examples written in docs/viewpath.md, checked verbatim.
@Suite struct SpecExampleTests {
    let specCanonical =
        "HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-1"
    let specXPath =
        "HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UIButton[1]"

    @Test func theSpecExamplePath() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let button = try #require(tree.node(id: "btn1"))
        let path = ViewPath(of: button)
        #expect(path.canonical == specCanonical)
        #expect(path.xpath == specXPath)
        // MD5 of the canonical form, computed offline with hashlib.
        #expect(path.viewID.hex == "a5b721d95905e8b7cbd64740d74710e1")
        #expect(button.viewID == path.viewID)
        #expect(try ViewPath(canonical: path.canonical) == path)
    }

    /// The example lines as docs/viewpath.md (our account of the contract) writes them, so an edit there shows here.
    @Test func theSpecFileExampleLines() throws {
        let url = Fixtures.docsDirectory.appendingPathComponent("viewpath.md")
        let text = try String(contentsOf: url, encoding: .utf8)
        func line(_ prefix: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .map { $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
        }
        #expect(line("canonical:") == specCanonical)
        #expect(line("xpath:") == specXPath)
        #expect(text.contains("`HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*`"))
        #expect(text.contains("`HomeViewController#HomeViewController#onFavBtnPressed:`"))
    }

    @Test func theFirstButtonBesideTheLabelIsIndexZero() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let path = ViewPath(of: try #require(tree.node(id: "btn0")))
        #expect(path.canonical.hasSuffix("&0-0-0-0:2-0-0"))
        #expect(path.viewID.hex == "8f5099e51bf92eb87b2ba62b98ccf912")
    }

    @Test func theSpecNameExamples() {
        #expect(TypeName.stripModulePrefix("Shop.ProductCell") == "ProductCell")
        #expect(TypeName.stripModulePrefix("Shop.Outer.Inner") == "Outer.Inner")
        #expect(TypeName.stripModulePrefix("UIButton") == "UIButton")
        let detail = node("Shop.DetailViewController", .controller, alias: "gift")
        #expect(detail.viewPath.canonical == "DetailViewController(gift)&0")
    }

    @Test func theSpecPatternExample() throws {
        let pattern = try PathPattern("HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:*")
        for row in [0, 2, 99] {
            let cell = node("Shop.ProductCell", .cell, indexPath: (0, row))
            let root = node("Shop.HomeViewController", .controller, [node("UIView", [node("UITableView", [cell])])])
            #expect(pattern.matches(path(of: cell, in: root)), "row \(row)")
        }
        let otherSection = node("Shop.ProductCell", .cell, indexPath: (1, 2))
        let root = node("Shop.HomeViewController", .controller, [node("UIView", [node("UITableView", [otherSection])])])
        #expect(!pattern.matches(path(of: otherSection, in: root)))
    }

    @Test func theSpecEventCodeExamples() {
        let favButton = node("UIButton")
        let menuCell = node("Shop.MenuItemCell", .cell, indexPath: (0, 1), [node("UIButton")])
        let root = node("Shop.HomeViewController", .controller, [node("UIView", [favButton, menuCell])])
        defer { withExtendedLifetime(root) {} }
        let fav = EventCode(sender: favButton, targetTypeName: "Shop.HomeViewController", action: "onFavBtnPressed:")
        #expect(fav.description == "HomeViewController#HomeViewController#onFavBtnPressed:")
        let add = EventCode(sender: menuCell.children[0], targetTypeName: "Shop.MenuItemCell", action: "onClickAdd:")
        #expect(add.description == "HomeViewController#MenuItemCell#onClickAdd:")
    }
}
