public import EventModel

/// A node of a view tree read from JSON (docs/viewpath.md §1): the toolkit-free implementation of `ViewNode`.
public final class TreeNode: ViewNode {
    public let typeName: String
    public let role: ViewRole
    public let cellIndexPath: CellIndexPath?
    public let pageAlias: String?
    /// The tool handle; never part of a path.
    public let id: String?
    public let title: String?
    public let props: JSONValue?
    /// Rule 3's name, computed once because type name, role and alias never change.
    public let pathName: String
    public private(set) var children: [TreeNode] = []
    /// Not `weak`: a weakly referenced object moves its reference counts to a side table, which
    /// made every retain and release of a node several times slower. The parent clears this
    /// pointer in its `deinit`, so it never dangles (nodes are not shared across threads).
    public private(set) unowned(unsafe) var parent: TreeNode?
    /// Where the node sits in the document, such as `children[2].children[0]` (empty for the root).
    public let position: String
    /// `children` as existentials, kept beside it so `childNodes` does not convert on every call.
    private var childStorage: [any ViewNode] = []

    public var parentNode: (any ViewNode)? { parent }
    public var childNodes: [any ViewNode] { childStorage }

    public init(
        typeName: String, role: ViewRole = .view, cellIndexPath: CellIndexPath? = nil, pageAlias: String? = nil,
        id: String? = nil, title: String? = nil, props: JSONValue? = nil, position: String = ""
    ) {
        self.typeName = typeName
        self.role = role
        self.cellIndexPath = cellIndexPath
        self.pageAlias = pageAlias
        self.id = id
        self.title = title
        self.props = props
        self.position = position
        let base = TypeName.name(typeName)
        if role == .controller, let pageAlias, !pageAlias.isEmpty {
            pathName = base + "(" + pageAlias + ")"
        } else {
            pathName = base
        }
    }

    deinit {
        for child in children { child.parent = nil }
    }

    /// Appends `child` as the last subview, taking it from its old parent if it had one.
    public func append(_ child: TreeNode) {
        var ancestor: TreeNode? = self
        while let a = ancestor {
            precondition(a !== child, "TreeNode.append: a node cannot be appended below itself (it would make a cycle)")
            ancestor = a.parent
        }
        child.removeFromParent()
        child.parent = self
        children.append(child)
        childStorage.append(child)
    }

    /// Removes the child at `index`.
    public func removeChild(at index: Int) {
        let child = children.remove(at: index)
        childStorage.remove(at: index)
        child.parent = nil
    }

    /// Detaches the node from its parent, if any.
    public func removeFromParent() {
        guard let parent, let i = parent.children.firstIndex(where: { $0 === self }) else { return }
        parent.removeChild(at: i)
    }

    /// How the node is named in errors: by id where it has one, else by position.
    public var locator: String {
        ViewTreeError.locator(id: id, position: position)
    }
}
