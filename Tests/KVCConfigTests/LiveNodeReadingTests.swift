import EventModel
import TestSupport
import Testing
import ViewIdentity

@testable import KVCConfig

/// A small live view tree: a controller holding its model, its root view, a cell whose model sits
/// in a superclass's stored property, a button in the cell.
private struct Item {
    var id: String
    var price: Double
}

private class Node: ViewNode {
    weak var parent: Node?
    var children: [Node] = []
    var typeName: String { String(describing: type(of: self)) }
    var role: ViewRole { .view }
    var parentNode: (any ViewNode)? { parent }
    var childNodes: [any ViewNode] { children }

    func add(_ child: Node) {
        child.parent = self
        children.append(child)
    }
}

private final class Page: Node, KeyValueReadable {
    let item = Item(id: "i-7", price: 2.5)
    override var role: ViewRole { .controller }

    /// A computed value, which reflection cannot see.
    func value(forKey key: String) -> Any? {
        switch key {
        case "displayPrice": return "€\(item.price)"
        case "item": return item
        default: return nil
        }
    }
}

private class BaseCell: Node {
    var item: Item?
    override var role: ViewRole { .cell }
    var cellIndexPath: CellIndexPath? { CellIndexPath(section: 0, row: 0) }
}

private final class ItemCell: BaseCell {
    let badge = "new"
}

private final class Button: Node {}

@Suite struct LiveNodeReadingTests {
    private static func tree() -> (page: Page, cell: ItemCell, button: Button) {
        let page = Page()
        let root = Node()
        let cell = ItemCell()
        let button = Button()
        page.add(root)
        root.add(cell)
        cell.add(button)
        cell.item = Item(id: "i-1", price: 9.5)
        return (page, cell, button)
    }

    private static func read(_ path: String, _ root: Any) throws -> Result<JSONValue, KeyPathMiss> {
        try KVCKeyPath(path).read(reflecting: root)
    }

    @Test func storedPropertiesOfTheObjectAndItsSuperclasses() throws {
        let t = Self.tree()
        #expect(try Self.read("item.id", t.cell).get() == "i-1", "declared in the superclass")
        #expect(try Self.read("badge", t.cell).get() == "new")
        t.cell.item = Item(id: "i-2", price: 1)
        #expect(try Self.read("item.id", t.cell).get() == "i-2", "read live, at the time of the read")
    }

    @Test func superviewAndParentStepUpTheViewTree() throws {
        let t = Self.tree()
        #expect(try Self.read("superview.item.price", t.button).get() == 9.5)
        #expect(try Self.read("parent.item.id", t.button).get() == "i-1")
        #expect(try Self.read("parent.parent.parent.item.id", t.button).get() == "i-7", "root view → controller")
        #expect(
            try Self.read("parent.parent.parent.parent.id", t.button)
                == .failure(KeyPathMiss(missingKey: "parent", resolvedPrefix: "parent.parent.parent", found: "the top of the view tree")))
    }

    @Test func aTypesOwnKeyValueConformanceAnswersComputedValues() throws {
        let t = Self.tree()
        #expect(try Self.read("displayPrice", t.page).get() == "€2.5")
        #expect(try Self.read("superview.superview.superview.displayPrice", t.button).get() == "€2.5")
        #expect(try Self.read("item.id", t.page).get() == "i-7")
        guard case .failure(let miss) = try Self.read("missing", t.page) else {
            Issue.record("a key the type does not answer names nothing")
            return
        }
        #expect(miss.missingKey == "missing")
    }

    @Test func aJSONTreeAnswersFromPropsAndStepsUpToo() throws {
        let tree = try ViewTree(json: Array(Fixtures.specExampleTree.utf8))
        let cell = try #require(tree.node(id: "cell"))
        let button = try #require(tree.node(id: "btn0"))
        #expect(try Self.read("product.id", cell).get() == "p-42")
        #expect(try Self.read("superview.superview.product.price", button).get() == 9.5)
        #expect(
            try Self.read("product.id", button)
                == .failure(KeyPathMiss(missingKey: "product", resolvedPrefix: "", found: "an object without it")))
    }
}
