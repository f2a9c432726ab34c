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
        var noPath: PathCollector?
        self = ViewPlacement.walk(from: node, path: &noPath)
    }

    private init(codeController: String, controller: (any ViewNode)?, cell: (any ViewNode)?) {
        self.codeController = codeController
        self.controller = controller
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

    /// The one walk up the tree behind both a placement and a path: from `node` up to where the
    /// placement ends (the first controller or window) and, when `elements` is given, on to where
    /// the path ends (the first controller, else the top; docs/viewpath.md §2 rules 1 and 4),
    /// appending the path's elements leaf first. Each node's role is asked once: this runs on every
    /// hooked tap.
    static func walk(from node: any ViewNode, path elements: inout PathCollector?) -> ViewPlacement {
        var ancestors = node.selfAndAncestors
        var current = ancestors.next()!
        var cell: (any ViewNode)?
        var placed: (node: any ViewNode, role: ViewRole)?
        // Bounded by the depth of the tree.
        while true {
            let role = current.role
            if placed == nil {
                if cell == nil, role == .cell { cell = current }
                if role == .controller || role == .window { placed = (current, role) }
            }
            let goesOn = role != .controller && (elements != nil || placed == nil)
            let parent = goesOn ? ancestors.next() : nil
            if elements != nil {
                let name = current.pathName
                let index: PathIndex
                if let parent {
                    if role == .cell, let ip = current.cellIndexPath {
                        index = .cell(ip)
                    } else {
                        index = .position(current.sameNameSiblingsBefore(name: name, parent: parent))
                    }
                } else {
                    index = .position(0)  // the root R (rule 4)
                }
                elements?.append(ViewPath.Element(name: name, index: index))
            }
            guard let parent else {
                let last = placed ?? (current, role)
                return ViewPlacement(
                    codeController: nameWithoutAlias(of: last.node, role: last.role),
                    controller: last.role == .controller ? last.node : nil, cell: cell)
            }
            current = parent
        }
    }
}

/// A node's placement and its path, found in one walk up the tree: what the hooks compute once
/// per interaction and hand on, so the tracker's click rules, event and rule match walk nothing.
public struct ViewLocation {
    public let placement: ViewPlacement
    public let path: ViewPath

    public init(of node: any ViewNode) {
        var elements: PathCollector? = PathCollector(previous: nil)
        placement = ViewPlacement.walk(from: node, path: &elements)
        path = elements.take()!.path
    }
}

/// The elements of a path as a walk finds them, leaf first. Given the path found last, it keeps
/// that path's elements while they are the ones found (an action repeated on the same control):
/// then no array is made, and the path returned shares the last one's storage.
struct PathCollector {
    /// The path found last, root first; empty for none.
    private let previous: [ViewPath.Element]
    /// How many elements, leaf first, equal the last ones of `previous`.
    private var matched = 0
    /// The elements found, leaf first, once one differed from `previous`.
    private var built: [ViewPath.Element]?

    init(previous: ViewPath?) { self.previous = previous?.elements ?? [] }

    mutating func append(_ element: ViewPath.Element) {
        if built != nil {
            built!.append(element)
            return
        }
        let i = previous.count - 1 - matched
        if i >= 0, previous[i] == element {
            matched += 1
            return
        }
        var elements: [ViewPath.Element] = []
        elements.reserveCapacity(24)
        elements.append(contentsOf: previous[(previous.count - matched)...].reversed())
        elements.append(element)
        built = elements
    }

    /// The path, root first.
    var path: ViewPath {
        guard var leafFirst = built else {
            // Every element equal to the last path's: that path itself, or its last part.
            return ViewPath(elements: matched == previous.count ? previous : Array(previous[(previous.count - matched)...]))
        }
        leafFirst.reverse()
        return ViewPath(elements: leafFirst)
    }
}
