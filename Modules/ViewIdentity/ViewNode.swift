public import EventModel

/// What a node is for path purposes (docs/viewpath.md §1).
public enum ViewRole: String, Sendable, Hashable, CaseIterable {
    case window, controller, cell, view
}

/// A cell's position in its list: section and row, both ≥ 0.
public struct CellIndexPath: Sendable, Hashable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// `s:r`, as paths print it.
    public var description: String { String(section) + ":" + String(row) }
}

/// A node of a view tree: what a UI toolkit adopts so that its views get a viewPath and viewId.
///
/// Nodes are objects because a view has identity: a node finds its own position among
/// its parent's children by `===`. Only `typeName`, `role`, `parentNode` and `childNodes` are
/// required; the rest have defaults.
public protocol ViewNode: AnyObject {
    /// The runtime type name as `String(reflecting:)` prints it, e.g. `Shop.ProductCell`.
    var typeName: String { get }
    /// What the node is for path purposes.
    var role: ViewRole { get }
    /// The superview (or owning controller); nil at the top of the tree.
    var parentNode: (any ViewNode)? { get }
    /// Subviews in order, the first added first.
    var childNodes: [any ViewNode] { get }
    /// Cells only: section and row. Ignored on nodes of other roles.
    var cellIndexPath: CellIndexPath? { get }
    /// Controllers only: the page alias. Ignored on nodes of other roles.
    var pageAlias: String? { get }
    /// Visible text.
    var title: String? { get }
    /// The data behind the view, read by KVC key paths.
    var props: JSONValue? { get }
    /// The node's path name (rule 3). The default computes it on every call; a toolkit whose
    /// type name and alias do not change may store it, which makes path computation cheaper.
    /// It must equal `ViewPath.elementName(of: self)`.
    var pathName: String { get }
    /// Whether the view itself is marked `autotrack-ignore` (docs/privacy.md); default false.
    var ignoresTracking: Bool { get }
    /// Whether the view or an ancestor is marked: nothing it does is tracked. The default walks
    /// `selfAndAncestors`; a toolkit may answer faster (GTK: no widget can be marked while the
    /// marker's name was never interned).
    var isInIgnoredView: Bool { get }
    /// Rule 4: how many of this node's earlier siblings under `parent` (its `parentNode`) have
    /// the path name `name` (its `pathName`). The default scans `parent.childNodes` and asks each
    /// sibling its `pathName`; a toolkit that can count without making a node per sibling may
    /// answer itself, with the same result. Paths ask it only of nodes that are not controllers
    /// (a path ends at its controller, which takes index 0).
    func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int
}

extension ViewNode {
    public var cellIndexPath: CellIndexPath? { nil }
    public var pageAlias: String? { nil }
    public var title: String? { nil }
    public var props: JSONValue? { nil }
    public var pathName: String { ViewPath.elementName(of: self) }
    public func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int {
        ViewPath.sameNameSiblingsBefore(self, name: name, parent: parent)
    }

    /// The node's viewPath (docs/viewpath.md §2).
    public var viewPath: ViewPath { ViewPath(of: self) }

    /// The node's viewId: MD5 of its path's canonical form (docs/viewpath.md §2 rule 7).
    public var viewID: ViewID { ViewPath(of: self).viewID }
}
