import ViewIdentity

/// Builds a `TreeNode` with its children in one expression, for tests.
func node(
    _ type: String, _ role: ViewRole = .view, id: String? = nil, indexPath: (Int, Int)? = nil, alias: String? = nil,
    _ children: [TreeNode] = []
) -> TreeNode {
    let n = TreeNode(
        typeName: type, role: role, cellIndexPath: indexPath.map { CellIndexPath(section: $0.0, row: $0.1) },
        pageAlias: alias, id: id)
    for c in children { n.append(c) }
    return n
}

/// A toolkit-style node that implements only the required members, to test the protocol's defaults.
final class BareNode: ViewNode {
    let typeName: String
    let role: ViewRole
    weak var parent: BareNode?
    var children: [BareNode] = []
    var pageAlias: String?

    init(_ typeName: String, _ role: ViewRole = .view, alias: String? = nil) {
        self.typeName = typeName
        self.role = role
        self.pageAlias = alias
    }

    var parentNode: (any ViewNode)? { parent }
    var childNodes: [any ViewNode] { children }

    @discardableResult
    func add(_ child: BareNode) -> BareNode {
        child.parent = self
        children.append(child)
        return child
    }
}

/// The path of `target` while `root` (which owns the tree: parents are weak) is kept alive.
func path(of target: TreeNode, in root: TreeNode) -> ViewPath {
    withExtendedLifetime(root) { target.viewPath }
}

/// A plain view with children.
func node(_ type: String, _ children: [TreeNode]) -> TreeNode {
    node(type, .view, children)
}
