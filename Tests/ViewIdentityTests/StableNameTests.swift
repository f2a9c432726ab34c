import Testing
import ViewIdentity

/// A private class: Swift prints its name with `(unknown context at $…)`, an address that changes between launches.
private final class SecretCell: ViewNode {
    var typeName: String { String(reflecting: SecretCell.self) }
    var role: ViewRole { .cell }
    var cellIndexPath: CellIndexPath? { CellIndexPath(section: 0, row: 1) }
    weak var parent: TreeNode?
    var parentNode: (any ViewNode)? { parent }
    var childNodes: [any ViewNode] { [] }
}

@Suite struct StableNameTests {
    @Test func privateAndLocalClassesHaveStableNamesWithoutTheirContextAddress() throws {
        let printed = String(reflecting: SecretCell.self)
        #expect(printed.contains("(unknown context at $"))
        #expect(TypeName.name(printed) == "SecretCell")

        final class LocalView {}
        let local = String(reflecting: LocalView.self)
        #expect(local.contains("(unknown context at $"))
        // Declared in a method of this suite: the enclosing type stays, as for any nested type.
        #expect(TypeName.name(local) == "StableNameTests.LocalView")

        // The contract's example, and a generic argument holding a private type.
        #expect(TypeName.name("Shop.(unknown context at $55a6851fc5f4).SecretCell") == "SecretCell")
        #expect(TypeName.name("Box<Shop.(unknown context at $55a6851fc5f4).X>") == "Box<Shop.X>")
        #expect(TypeName.name("Shop.ProductCell") == "ProductCell")
    }

    @Test func aPrivateClassesViewPathAndViewIdDoNotDependOnTheLaunch() throws {
        let table = TreeNode(typeName: "UITableView")
        let cell = SecretCell()
        cell.parent = table
        // Not a child of the table for sibling counting: a cell's index is its index path.
        #expect(cell.viewPath.canonical == "UITableView-SecretCell&0-0:1")
        #expect(cell.viewID == ViewID(canonical: "UITableView-SecretCell&0-0:1"))
    }
}
