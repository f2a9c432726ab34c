import Testing
import ViewIdentity

/// viewpath.md §2, one test (or more) per rule.
@Suite struct ViewPathTests {
    // MARK: Rule 1: root

    @Test func rule1RootIsTheNearestControllerAbove() {
        let button = node("UIButton")
        let inner = node("Shop.ChildViewController", .controller, [node("UIView", [button])])
        let root = node("Shop.ParentViewController", .controller, [node("UIView", [inner])])
        #expect(path(of: button, in: root).canonical == "ChildViewController-UIView-UIButton&0-0-0")
    }

    @Test func rule1TheTargetItselfMayBeTheRoot() {
        let inner = node("Shop.ChildViewController", .controller)
        let root = node("Shop.ParentViewController", .controller, [node("UIView", [node("UILabel"), inner])])
        #expect(path(of: inner, in: root).canonical == "ChildViewController&0")
        #expect(path(of: inner, in: root).xpath == "ChildViewController[0]")
    }

    @Test func rule1WithoutAControllerTheRootIsTheTopmostAncestor() {
        let label = node("UILabel")
        let root = node("UIWindow", .window, [node("UIView"), node("UIView", [node("UIStackView", [label])])])
        #expect(path(of: label, in: root).canonical == "UIWindow-UIView-UIStackView-UILabel&0-1-0-0")
    }

    @Test func rule1ALoneViewIsItsOwnRoot() {
        #expect(node("Shop.Badge").viewPath.canonical == "Badge&0")
    }

    // MARK: Rule 2: elements

    @Test func rule2ElementsRunFromRootToTargetBothIncluded() {
        let target = node("UIButton")
        let root = node("HomeViewController", .controller, [node("A", [node("B", [node("C", [target])])])])
        let p = path(of: target, in: root)
        #expect(p.elements.map(\.name) == ["HomeViewController", "A", "B", "C", "UIButton"])
        #expect(p.elements.first?.index == .position(0))
    }

    // MARK: Rule 3: names

    @Test func rule3NamesDropTheModulePrefix() {
        let inner = node("Shop.Outer.Inner")
        let root = node("Shop.HomeViewController", .controller, [node("Shop.ProductCell", [inner])])
        #expect(path(of: inner, in: root).canonical == "HomeViewController-ProductCell-Outer.Inner&0-0-0")
    }

    @Test func rule3AControllerWithAnAliasIsNameParenAlias() {
        let button = node("UIButton")
        let root = node("Shop.DetailViewController", .controller, alias: "gift", [node("UIView", [button])])
        let p = path(of: button, in: root)
        #expect(p.canonical == "DetailViewController(gift)-UIView-UIButton&0-0-0")
        #expect(p.xpath == "DetailViewController(gift)[0]/UIView[0]/UIButton[0]")
        #expect(p.viewID.hex == "802b88cb31b1285eae4639448d758933")
    }

    @Test func rule3AnAliasOnANodeThatIsNotAControllerIsIgnored() {
        let view = node("Shop.Banner", alias: "promo")
        let root = node("HomeViewController", .controller, [view])
        #expect(path(of: view, in: root).canonical == "HomeViewController-Banner&0-0")
    }

    @Test func rule3AnAliasMakesADifferentNameForSiblingCounting() {
        let gift = node("Shop.DetailViewController", .controller, alias: "gift")
        let plain = node("Shop.DetailViewController", .controller)
        let book = node("Shop.DetailViewController", .controller, alias: "book")
        let plain2 = node("Shop.DetailViewController", .controller)
        let root = node("UIWindow", .window, [gift, plain, book, plain2])
        // Child controllers are their own roots, so the sibling rule shows through a view under each.
        let views = [gift, plain, book, plain2].map { c in
            let v = node("UIView")
            c.append(v)
            return v
        }
        #expect(path(of: views[0], in: root).canonical == "DetailViewController(gift)-UIView&0-0")
        #expect(path(of: views[3], in: root).canonical == "DetailViewController-UIView&0-0")
        #expect(ViewPath.elementName(of: book) == "DetailViewController(book)")
        #expect(book.pathName == "DetailViewController(book)")
    }

    @Test func rule3ToolkitNodesComputeTheSameNamesAsTreeNodes() {
        let window = BareNode("UIKit.UIWindow", .window)
        let controller = window.add(BareNode("Shop.DetailViewController", .controller, alias: "gift"))
        let content = controller.add(BareNode("UIView"))
        content.add(BareNode("UIKit.UILabel"))
        let second = content.add(BareNode("UIKit.UILabel"))
        #expect(second.viewPath.canonical == "DetailViewController(gift)-UIView-UILabel&0-0-1")
        #expect(second.pathName == "UILabel")
        #expect(controller.pathName == "DetailViewController(gift)")
    }

    // MARK: Rule 4: indexes

    @Test func rule4TheRootIsAlwaysZero() {
        // The root controller has earlier same-named siblings and is a cell with an indexPath: still 0.
        let label = node("UILabel")
        let rootCell = node("Shop.ProductCell", .cell, indexPath: (3, 4), [label])
        #expect(path(of: label, in: rootCell).canonical == "ProductCell-UILabel&0-0")
        let target = node("HomeViewController", .controller, [node("UIView")])
        let window = node("UIWindow", .window, [node("HomeViewController", .controller), target])
        #expect(path(of: target.children[0], in: window).canonical == "HomeViewController-UIView&0-0")
    }

    @Test func rule4ACellWithAnIndexPathIsSectionColonRow() {
        let cell = node("Shop.ProductCell", .cell, indexPath: (2, 17))
        let root = node("HomeViewController", .controller, [node("UITableView", [node("Shop.ProductCell", .cell, indexPath: (0, 0)), cell])])
        let p = path(of: cell, in: root)
        #expect(p.canonical == "HomeViewController-UITableView-ProductCell&0-0-2:17")
        #expect(p.elements.last?.index == .cell(CellIndexPath(section: 2, row: 17)))
    }

    @Test func rule4ACellWithoutAnIndexPathCountsSameNamedSiblings() {
        let cells = (0..<3).map { _ in node("Shop.ProductCell", .cell) }
        let root = node("HomeViewController", .controller, [node("UICollectionView", cells)])
        #expect(path(of: cells[2], in: root).canonical == "HomeViewController-UICollectionView-ProductCell&0-0-2")
    }

    @Test func rule4AnIndexPathOnANodeThatIsNotACellIsIgnored() {
        let view = node("UIView", indexPath: (1, 1))
        let root = node("HomeViewController", .controller, [node("UIView"), view])
        #expect(path(of: view, in: root).canonical == "HomeViewController-UIView&0-1")
    }

    @Test func rule4OnlySiblingsOfTheSameNameCount() {
        let buttons = [node("UIButton"), node("UIButton"), node("UIButton")]
        let content = node("UIView", [node("UILabel"), buttons[0], node("UIImageView"), buttons[1], node("UILabel"), buttons[2]])
        let root = node("HomeViewController", .controller, [content])
        #expect(buttons.map { path(of: $0, in: root).elements.last?.index } == [.position(0), .position(1), .position(2)])
        #expect(path(of: content.children[4], in: root).canonical == "HomeViewController-UIView-UILabel&0-0-1")
    }

    @Test func rule4RemovingASiblingOfAnotherNameLeavesIndexesUnchanged() {
        let fav = node("UIButton")
        let buy = node("UIButton")
        let content = node("UIView", [fav, node("UILabel"), buy])
        let root = node("HomeViewController", .controller, [content])
        let before = [path(of: fav, in: root), path(of: buy, in: root)]
        content.removeChild(at: 1)
        #expect(content.children.count == 2)
        let after = [path(of: fav, in: root), path(of: buy, in: root)]
        #expect(before == after)
        #expect(after.map(\.viewID) == before.map(\.viewID))
        // Removing a sibling of the same name does shift the later one.
        content.removeChild(at: 0)
        #expect(path(of: buy, in: root).canonical == "HomeViewController-UIView-UIButton&0-0-0")
    }

    @Test func rule4NamesAreComparedAfterStrippingTheModule() {
        // `A.Cell` and `B.Cell` are both named `Cell`, so they count as the same name.
        let second = node("B.Cell")
        let root = node("HomeViewController", .controller, [node("A.Cell"), second])
        #expect(path(of: second, in: root).canonical == "HomeViewController-Cell&0-1")
    }

    // MARK: Rules 5–7: forms and viewId

    @Test func rule5And6TheTwoTextForms() {
        let p = ViewPath(elements: [
            .init(name: "HomeViewController", index: .position(0)),
            .init(name: "UITableView", index: .position(3)),
            .init(name: "ProductCell", index: .cell(CellIndexPath(section: 1, row: 20))),
        ])
        #expect(p.canonical == "HomeViewController-UITableView-ProductCell&0-3-1:20")
        #expect(p.xpath == "HomeViewController[0]/UITableView[3]/ProductCell[1:20]")
        #expect(p.description == p.canonical)
    }

    @Test func textFormsOfLargeAndEdgeIndexes() throws {
        let big = ViewPath(elements: [
            .init(name: "A", index: .position(0)),
            .init(name: "B", index: .position(Int.max)),
            .init(name: "C", index: .cell(CellIndexPath(section: 10, row: 1_000_000))),
            .init(name: "D", index: .position(9)),
            .init(name: "E", index: .position(10)),
        ])
        #expect(big.canonical == "A-B-C-D-E&0-9223372036854775807-10:1000000-9-10")
        #expect(big.xpath == "A[0]/B[9223372036854775807]/C[10:1000000]/D[9]/E[10]")
        #expect(try ViewPath(canonical: big.canonical) == big)
        #expect(ViewPath(elements: []).canonical == "&")
        #expect(ViewPath(elements: []).xpath == "")
        // Only paths built by hand can hold a negative number; they still print whole.
        #expect(ViewPath(elements: [.init(name: "A", index: .position(-12))]).canonical == "A&-12")
    }

    @Test func rule7TheViewIdIsLowercaseHexMD5OfTheCanonicalUTF8() {
        let p = ViewPath(elements: [.init(name: "Café(é)", index: .position(0))])
        #expect(p.canonical == "Café(é)&0")
        #expect(p.viewID.hex == "4bf4c0816a5ba0c5783864d10650eccc")  // hashlib, offline
        #expect(p.viewID == ViewID(path: p))
        #expect(p.viewID.hex.count == 32)
    }

    @Test func elementsCompareNamesByBytes() {
        let composed = ViewPath.Element(name: "Caf\u{E9}", index: .position(0))
        let decomposed = ViewPath.Element(name: "Cafe\u{301}", index: .position(0))
        #expect(composed != decomposed)
        #expect(composed == ViewPath.Element(name: "Caf\u{E9}", index: .position(0)))
    }

    @Test func viewIDReadsOnlyLowercaseHex() {
        #expect(ViewID(hex: "a5b721d95905e8b7cbd64740d74710e1")?.hex == "a5b721d95905e8b7cbd64740d74710e1")
        #expect(ViewID(hex: "A5B721D95905E8B7CBD64740D74710E1") == nil)
        #expect(ViewID(hex: "a5b7") == nil)
    }
}

/// Module-prefix stripping (rule 3) on its own, including the cases where the spec leaves room.
@Suite struct TypeNameTests {
    @Test(arguments: [
        ("Shop.ProductCell", "ProductCell"),
        ("Shop.Outer.Inner", "Outer.Inner"),
        ("UIButton", "UIButton"),
        ("UIKit.UIButton", "UIButton"),
        ("Shop.Box<Shop.Item>", "Box<Shop.Item>"),
        ("Box<Shop.Item>", "Box<Shop.Item>"),
        ("Swift.Array<Swift.Int>", "Array<Swift.Int>"),
        ("Shop.Pair<Swift.Int, Swift.String>", "Pair<Swift.Int, Swift.String>"),
        ("Shop_2.Cell", "Cell"),
        ("Café.Cell", "Cell"),
        ("商店.Cell", "Cell"),
        ("Shop.(unknown context at $10a0c).Local", "(unknown context at $10a0c).Local"),
        (".Cell", ".Cell"),
        ("My-Module.Cell", "My-Module.Cell"),
        ("Shop.", "Shop."),
        ("(Shop).Cell", "(Shop).Cell"),
    ])
    func stripsOnlyAPlainIdentifierPrefix(typeName: String, expected: String) {
        #expect(TypeName.stripModulePrefix(typeName) == expected)
        #expect(TypeName.stripModulePrefix(typeName) == expected)
    }
}

@Suite struct EventCodeTests {
    @Test func aWindowMetBeforeAnyControllerGivesTheWindowsName() {
        let button = node("UIButton")
        let root = node("Shop.HomeViewController", .controller, [node("UIKit.UIWindow", .window, [node("UIView", [button])])])
        withExtendedLifetime(root) {
            #expect(EventCode.controllerName(from: button) == "UIWindow")
        }
    }

    @Test func theEndOfTheChainGivesTheTopmostName() {
        let button = node("UIButton")
        let root = node("Shop.Panel", [node("UIView", [button])])
        withExtendedLifetime(root) {
            #expect(EventCode(sender: button, targetTypeName: "Shop.Panel", action: "tap:").description == "Panel#Panel#tap:")
        }
        #expect(EventCode.controllerName(from: node("Shop.Lonely")) == "Lonely")
    }

    @Test func theChainStartsAtTheSenderItself() {
        // A controller sending its own action (or a page event) names itself, as UIKit's
        // responder chain starts at the responder.
        let inner = node("Shop.ChildViewController", .controller)
        let root = node("Shop.ParentViewController", .controller, [node("UIView", [inner])])
        withExtendedLifetime(root) {
            #expect(EventCode.controllerName(from: inner) == "ChildViewController")
            #expect(EventCode.controllerName(from: root) == "ParentViewController")
        }
    }

    @Test func theControllerNameHasNoAlias() {
        let button = node("UIButton")
        let root = node("Shop.DetailViewController", .controller, alias: "gift", [button])
        withExtendedLifetime(root) {
            #expect(EventCode.controllerName(from: button) == "DetailViewController")
        }
    }
}
