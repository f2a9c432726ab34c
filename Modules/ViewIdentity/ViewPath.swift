/// The index of one path element: a position among same-named siblings, or a cell's `s:r`.
public enum PathIndex: Sendable, Hashable, CustomStringConvertible {
    case position(Int)
    case cell(CellIndexPath)

    public var description: String {
        switch self {
        case .position(let i): return String(i)
        case .cell(let ip): return ip.description
        }
    }
}

/// A stable identity for a view: the elements from its controller (or topmost ancestor) down to it.
public struct ViewPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: a name and an index.
    public struct Element: Sendable, Hashable {
        public var name: String
        public var index: PathIndex

        public init(name: String, index: PathIndex) {
            self.name = name
            self.index = index
        }
    }

    public var elements: [Element]

    public init(elements: [Element]) {
        self.elements = elements
    }

    /// Names joined with `-`, `&`, then indexes joined with `-` (viewpath.md §2 rule 5).
    public var canonical: String {
        var s = ""
        s.reserveCapacity(elements.count * 16)
        for (i, e) in elements.enumerated() {
            if i > 0 { s.append("-") }
            s.append(e.name)
        }
        s.append("&")
        for (i, e) in elements.enumerated() {
            if i > 0 { s.append("-") }
            s.append(e.index.description)
        }
        return s
    }

    /// `name[index]` joined with `/` (viewpath.md §2 rule 6).
    public var xpath: String {
        elements.map { "\($0.name)[\($0.index)]" }.joined(separator: "/")
    }

    /// MD5 of the canonical form.
    public var viewID: ViewID { ViewID(canonical: canonical) }

    public var description: String { canonical }
}

extension ViewPath {
    /// Computes the path of `target` (viewpath.md §2).
    public init(of target: any ViewNode) {
        // Walk up to the nearest controller (T included); without one, the topmost ancestor.
        var chain: [any ViewNode] = [target]
        var node: any ViewNode = target
        while node.role != .controller, let parent = node.parentNode {
            chain.append(parent)
            node = parent
        }
        var elements: [Element] = []
        elements.reserveCapacity(chain.count)
        for (depth, n) in chain.reversed().enumerated() {
            let name = ViewPath.elementName(of: n)
            let index: PathIndex
            if depth == 0 {
                index = .position(0)
            } else if n.role == .cell, let ip = n.cellIndexPath {
                index = .cell(ip)
            } else {
                index = .position(ViewPath.sameNameSiblingsBefore(n, name: name))
            }
            elements.append(Element(name: name, index: index))
        }
        self.init(elements: elements)
    }

    /// Rule 3: the type name without module prefix; a controller with an alias is `Name(alias)`.
    public static func elementName(of node: any ViewNode) -> String {
        let base = TypeName.stripModulePrefix(node.typeName)
        if node.role == .controller, let alias = node.pageAlias, !alias.isEmpty {
            return "\(base)(\(alias))"
        }
        return base
    }

    /// Rule 4: how many earlier siblings have the same name; siblings of other names don't count.
    static func sameNameSiblingsBefore(_ node: any ViewNode, name: String) -> Int {
        guard let parent = node.parentNode else { return 0 }
        var count = 0
        for sibling in parent.childNodes {
            if sibling === node { return count }
            if elementName(of: sibling) == name { count += 1 }
        }
        return count
    }
}
