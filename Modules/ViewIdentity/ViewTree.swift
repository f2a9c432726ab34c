import EventModel

/// A node of a view tree read from JSON (viewpath.md §1): the toolkit-free implementation of `ViewNode`.
public final class TreeNode: ViewNode {
    public let typeName: String
    public let role: ViewRole
    public let cellIndexPath: CellIndexPath?
    public let pageAlias: String?
    /// The tool handle; never part of a path.
    public let id: String?
    public let title: String?
    public let props: JSONValue?
    public private(set) var children: [TreeNode] = []
    public private(set) weak var parent: TreeNode?
    /// Where the node sits in the document, such as `children[2].children[0]` (empty for the root).
    public let position: String

    public var parentNode: (any ViewNode)? { parent }
    public var childNodes: [any ViewNode] { children }

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
    }

    /// Appends `child` as the last subview.
    public func append(_ child: TreeNode) {
        child.parent = self
        children.append(child)
    }

    /// Removes the child at `index`.
    public func removeChild(at index: Int) {
        let child = children.remove(at: index)
        child.parent = nil
    }

    /// How the node is named in errors: by id where it has one, else by position.
    public var locator: String {
        if let id { return "node \"\(id)\"" }
        return position.isEmpty ? "the root node" : "node at \(position)"
    }
}

/// A whole view tree read from JSON, with its nodes by id.
public struct ViewTree {
    public let root: TreeNode
    /// Every node that has an `id`, in document order.
    public let identified: [TreeNode]
    private let byID: [String: TreeNode]

    /// The node whose `id` is `id`.
    public func node(id: String) -> TreeNode? { byID[id] }

    /// Reads a tree from JSON text.
    public init(json text: some Collection<UInt8>) throws(ViewTreeError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw ViewTreeError(locator: "the document", reason: "is not valid JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Reads a tree from a parsed JSON value.
    public init(json value: JSONValue) throws(ViewTreeError) {
        var identified: [TreeNode] = []
        var byID: [String: TreeNode] = [:]
        root = try ViewTree.build(value, position: "", identified: &identified, byID: &byID)
        self.identified = identified
        self.byID = byID
    }

    private static func build(
        _ value: JSONValue, position: String, identified: inout [TreeNode], byID: inout [String: TreeNode]
    ) throws(ViewTreeError) -> TreeNode {
        let posName = position.isEmpty ? "the root node" : "node at \(position)"
        guard case .object(let o) = value else {
            throw ViewTreeError(locator: posName, reason: "must be a JSON object, found \(value.kindDescription)")
        }
        var id: String?
        if let v = o["id"] {
            guard case .string(let s) = v else {
                throw ViewTreeError(locator: posName, reason: "has an \"id\" that is \(v.kindDescription), expected a string")
            }
            id = s
        }
        let locator = id.map { "node \"\($0)\"" } ?? posName
        func optionalString(_ key: String) throws(ViewTreeError) -> String? {
            guard let v = o[key], v != .null else { return nil }
            guard case .string(let s) = v else {
                throw ViewTreeError(locator: locator, reason: "has a \"\(key)\" that is \(v.kindDescription), expected a string")
            }
            return s
        }
        guard let type = try optionalString("type"), !type.isEmpty else {
            throw ViewTreeError(locator: locator, reason: "has a missing or empty \"type\"")
        }
        var role = ViewRole.view
        if let r = try optionalString("role") {
            guard let parsed = ViewRole(rawValue: r) else {
                throw ViewTreeError(
                    locator: locator, reason: "has an unknown role \"\(r)\" (expected window, controller, cell or view)")
            }
            role = parsed
        }
        var indexPath: CellIndexPath?
        if let v = o["indexPath"], v != .null {
            guard case .array(let a) = v, a.count == 2, let s = a[0].intValue, let r = a[1].intValue, s >= 0, r >= 0,
                s <= Int64(Int32.max), r <= Int64(Int32.max)
            else {
                throw ViewTreeError(
                    locator: locator, reason: "has a malformed \"indexPath\" \(v.jsonText) (expected [section, row], two integers ≥ 0)")
            }
            indexPath = CellIndexPath(section: Int(s), row: Int(r))
        }
        let alias = try optionalString("alias")
        if let alias {
            let ok = !alias.isEmpty && alias.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F
            }
            guard ok else {
                throw ViewTreeError(locator: locator, reason: "has a malformed \"alias\" \"\(alias)\" (expected [A-Za-z0-9_]+)")
            }
        }
        let title = try optionalString("title")
        let props = o["props"]
        if let props, props != .null, props.objectValue == nil {
            throw ViewTreeError(locator: locator, reason: "has \"props\" that is \(props.kindDescription), expected an object")
        }
        let node = TreeNode(
            typeName: type, role: role, cellIndexPath: indexPath, pageAlias: alias, id: id, title: title,
            props: props == .null ? nil : props, position: position)
        if let id {
            if byID[id] != nil {
                throw ViewTreeError(locator: locator, reason: "repeats an id used by an earlier node (ids must be unique)")
            }
            byID[id] = node
            identified.append(node)
        }
        if let c = o["children"], c != .null {
            guard case .array(let children) = c else {
                throw ViewTreeError(locator: locator, reason: "has \"children\" that is \(c.kindDescription), expected an array")
            }
            for (i, child) in children.enumerated() {
                let childPos = position.isEmpty ? "children[\(i)]" : "\(position).children[\(i)]"
                node.append(try build(child, position: childPos, identified: &identified, byID: &byID))
            }
        }
        return node
    }
}

/// A view tree that breaks viewpath.md §1; names the node by id or position.
public struct ViewTreeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `node "buy"`, `node at children[2].children[0]`, `the root node` or `the document`.
    public var locator: String
    public var reason: String

    public var description: String { "\(locator) \(reason)" }
}
