/// A node, then its parent, its parent's parent, … up to the topmost ancestor: the one walk up a
/// view tree. `ViewPath`, `EventCode`, `ViewPlacement` (and through it the hooks and the recording
/// player) all walk through it.
public struct ViewAncestors: Sequence, IteratorProtocol {
    private var node: (any ViewNode)?

    init(from node: any ViewNode) { self.node = node }

    public mutating func next() -> (any ViewNode)? {
        guard let current = node else { return nil }
        node = current.parentNode
        return current
    }
}

extension ViewNode {
    /// This node first, then every ancestor up to the top of the tree.
    public var selfAndAncestors: ViewAncestors { ViewAncestors(from: self) }
}

/// Where a node sits, found in one walk up the tree: what an interaction on it is named by.
///
/// - `codeController`: the `Controller` of an event code (docs/viewpath.md §4): the first node of role
///   `controller` or `window` at or above the node, else the topmost ancestor; name without alias.
/// - `controller`: that node when it is a controller (the page); nil when a window or the top came first.
/// - `cell`: the first node of role `cell` at or above the node.
public struct ViewPlacement {
    public let codeController: String
    public let controller: (any ViewNode)?
    public let cell: (any ViewNode)?

    public init(of node: any ViewNode) {
        var cell: (any ViewNode)?
        var last: any ViewNode = node
        var lastRole = ViewRole.view
        for n in node.selfAndAncestors {
            last = n
            lastRole = n.role  // asked once per node: this runs on every hooked tap
            if cell == nil, lastRole == .cell { cell = n }
            if lastRole == .controller || lastRole == .window { break }
        }
        codeController = ViewPlacement.nameWithoutAlias(of: last, role: lastRole)
        controller = lastRole == .controller ? last : nil
        self.cell = cell
    }

    /// The page name: the controller's rule-3 name with its alias (`DetailViewController(gift)`).
    public var page: String? { controller?.pathName }

    /// Rule 3's name without the alias; a node's stored `pathName` when it carries none.
    static func nameWithoutAlias(of node: any ViewNode, role: ViewRole) -> String {
        if role == .controller, let alias = node.pageAlias, !alias.isEmpty {
            return TypeName.name(node.typeName)
        }
        return node.pathName
    }
}
