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

        /// Names compare by their UTF-8 bytes, as the viewId does: two spellings of "é" are two names.
        public static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.index == rhs.index && sameBytes(lhs.name, rhs.name)
        }
    }

    public var elements: [Element]

    public init(elements: [Element]) {
        self.elements = elements
    }

    /// Names joined with `-`, `&`, then indexes joined with `-` (viewpath.md §2 rule 5).
    public var canonical: String {
        var s = ""
        s.reserveCapacity(estimatedLength)
        for (i, e) in elements.enumerated() {
            if i > 0 { s.append("-") }
            s.append(e.name)
        }
        s.append("&")
        for (i, e) in elements.enumerated() {
            if i > 0 { s.append("-") }
            e.index.append(to: &s)
        }
        return s
    }

    /// `name[index]` joined with `/` (viewpath.md §2 rule 6).
    public var xpath: String {
        var s = ""
        s.reserveCapacity(estimatedLength + 2 * elements.count)
        for (i, e) in elements.enumerated() {
            if i > 0 { s.append("/") }
            s.append(e.name)
            s.append("[")
            e.index.append(to: &s)
            s.append("]")
        }
        return s
    }

    /// MD5 of the canonical form.
    public var viewID: ViewID { ViewID(canonical: canonical) }

    public var description: String { canonical }

    private var estimatedLength: Int {
        var n = 1
        for e in elements { n += e.name.utf8.count + 6 }
        return n
    }
}

extension PathIndex {
    /// Appends the index as paths print it; small integers format without touching the heap.
    func append(to s: inout String) {
        switch self {
        case .position(let i):
            s.append(String(i))
        case .cell(let ip):
            s.append(String(ip.section))
            s.append(":")
            s.append(String(ip.row))
        }
    }
}

extension ViewPath {
    /// Computes the path of `target` (viewpath.md §2).
    public init(of target: any ViewNode) {
        var elements: [Element] = []
        elements.reserveCapacity(16)
        var node: any ViewNode = target
        // Walk up from T (T included) to the nearest controller, or to the topmost ancestor (rule 1),
        // collecting elements leaf first; the root R always gets index 0 (rule 4).
        while true {
            let name = node.pathName
            guard node.role != .controller, let parent = node.parentNode else {
                elements.append(Element(name: name, index: .position(0)))
                break
            }
            let index: PathIndex
            if node.role == .cell, let ip = node.cellIndexPath {
                index = .cell(ip)
            } else {
                index = .position(ViewPath.sameNameSiblingsBefore(node, name: name, parent: parent))
            }
            elements.append(Element(name: name, index: index))
            node = parent
        }
        elements.reverse()
        self.init(elements: elements)
    }

    /// Rule 3: the type name without module prefix; a controller with an alias is `Name(alias)`.
    public static func elementName(of node: any ViewNode) -> String {
        let base = TypeName.stripModulePrefix(node.typeName)
        if node.role == .controller, let alias = node.pageAlias, !alias.isEmpty {
            return base + "(" + alias + ")"
        }
        return base
    }

    /// Rule 4: how many earlier siblings have the same name; siblings of other names don't count.
    static func sameNameSiblingsBefore(_ node: any ViewNode, name: String) -> Int {
        guard let parent = node.parentNode else { return 0 }
        return sameNameSiblingsBefore(node, name: name, parent: parent)
    }

    static func sameNameSiblingsBefore(_ node: any ViewNode, name: String, parent: any ViewNode) -> Int {
        var count = 0
        for sibling in parent.childNodes {
            if sibling === node { return count }
            if sameBytes(sibling.pathName, name) { count += 1 }
        }
        return count
    }
}

/// Byte equality of two strings' UTF-8, without the canonical-equivalence work of `==`.
@inline(__always)
func sameBytes(_ a: String, _ b: String) -> Bool {
    a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
}
