public import EventModel

/// A whole view tree read from JSON (docs/viewpath.md §1), with its nodes by id.
public struct ViewTree {
    public let root: TreeNode
    /// Every node that has an `id`, in document order.
    public let identified: [TreeNode]
    private let byID: [String: TreeNode]

    /// The node whose `id` is `id`.
    public func node(id: String) -> TreeNode? { byID[id] }

    /// Reads a tree from JSON text (UTF-8 bytes).
    public init(json text: some Collection<UInt8>) throws(ViewTreeError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw ViewTreeError(code: .invalidJSON, locator: "the document", reason: "is not valid JSON: \(error)")
        }
        try self.init(json: value)
    }

    /// Reads a tree from a parsed JSON value.
    public init(json value: JSONValue) throws(ViewTreeError) {
        var reader = Reader()
        root = try reader.build(value, position: "")
        identified = reader.identified
        byID = reader.byID
    }

    /// Builds nodes depth first, so ids are met (and duplicates found) in document order.
    private struct Reader {
        var identified: [TreeNode] = []
        var byID: [String: TreeNode] = [:]

        mutating func build(_ value: JSONValue, position: String) throws(ViewTreeError) -> TreeNode {
            let fields = try NodeFields(value, position: position)
            let node = TreeNode(
                typeName: try fields.type(), role: try fields.role(), cellIndexPath: try fields.indexPath(), pageAlias: try fields.alias(),
                id: fields.id, title: try fields.string("title"), props: try fields.props(), position: position)
            try register(node, locator: fields.locator)
            let prefix = position.isEmpty ? "children[" : position + ".children["
            for (i, child) in try fields.children().enumerated() {
                node.append(try build(child, position: prefix + String(i) + "]"))
            }
            return node
        }

        /// Keeps a node with an id by it; a second node with the same id is an error.
        mutating func register(_ node: TreeNode, locator: String) throws(ViewTreeError) {
            guard let id = node.id else { return }
            if let earlier = byID[id] {
                let at = earlier.position.isEmpty ? "the root node" : earlier.position
                throw ViewTreeError(
                    code: .duplicateID, locator: locator,
                    reason: "repeats the id of the node at \(at); ids must be unique")
            }
            byID[id] = node
            identified.append(node)
        }
    }

    /// One node's members, each read and checked on its own; errors name the node by its id
    /// (once read) and position.
    private struct NodeFields {
        let o: JSONObject
        let id: String?
        let locator: String

        init(_ value: JSONValue, position: String) throws(ViewTreeError) {
            let unnamed = ViewTreeError.locator(id: nil, position: position)
            guard case .object(let o) = value else {
                throw ViewTreeError(
                    code: .notAnObject, locator: unnamed, reason: "must be a JSON object, found \(value.kindDescription)")
            }
            self.o = o
            guard let v = o["id"], v != .null else {
                (id, locator) = (nil, unnamed)
                return
            }
            guard case .string(let s) = v else {
                throw ViewTreeError(
                    code: .wrongKind, locator: unnamed,
                    reason: "has an \"id\" that is \(v.kindDescription); expected a string")
            }
            (id, locator) = (s, ViewTreeError.locator(id: s, position: position))
        }

        func string(_ key: String) throws(ViewTreeError) -> String? {
            guard let v = o[key], v != .null else { return nil }
            guard case .string(let s) = v else {
                throw ViewTreeError(
                    code: .wrongKind, locator: locator,
                    reason: "has a \"\(key)\" that is \(v.kindDescription); expected a string")
            }
            return s
        }

        func type() throws(ViewTreeError) -> String {
            guard let type = try string("type"), !type.isEmpty else {
                throw ViewTreeError(
                    code: .missingType, locator: locator,
                    reason: "has a missing or empty \"type\"")
            }
            return type
        }

        func role() throws(ViewTreeError) -> ViewRole {
            guard let r = try string("role") else { return .view }
            guard let parsed = ViewRole(rawValue: r) else {
                throw ViewTreeError(
                    code: .unknownRole, locator: locator,
                    reason: "has an unknown \"role\" \"\(r)\"; expected window, controller, cell or view")
            }
            return parsed
        }

        func indexPath() throws(ViewTreeError) -> CellIndexPath? {
            guard let v = o["indexPath"], v != .null else { return nil }
            // Exactly two JSON integers ≥ 0; 2.0 or "2" is refused rather than guessed at.
            guard case .array(let a) = v, a.count == 2, case .int(let s) = a[0], case .int(let r) = a[1],
                s >= 0, r >= 0
            else {
                throw ViewTreeError(
                    code: .malformedIndexPath, locator: locator,
                    reason: "has a malformed \"indexPath\" \(v.jsonText); expected [section, row], two integers ≥ 0")
            }
            return CellIndexPath(section: Int(s), row: Int(r))
        }

        func alias() throws(ViewTreeError) -> String? {
            let alias = try string("alias")
            if let alias, !ViewTree.isValidAlias(alias) {
                throw ViewTreeError(
                    code: .malformedAlias, locator: locator,
                    reason: "has a malformed \"alias\" \(JSONValue.string(alias).jsonText); expected [A-Za-z0-9_]+")
            }
            return alias
        }

        func props() throws(ViewTreeError) -> JSONValue? {
            guard let p = o["props"], p != .null else { return nil }
            guard case .object = p else {
                throw ViewTreeError(
                    code: .wrongKind, locator: locator,
                    reason: "has \"props\" that is \(p.kindDescription); expected an object")
            }
            return p
        }

        func children() throws(ViewTreeError) -> [JSONValue] {
            guard let c = o["children"], c != .null else { return [] }
            guard case .array(let children) = c else {
                throw ViewTreeError(
                    code: .wrongKind, locator: locator,
                    reason: "has \"children\" that is \(c.kindDescription); expected an array of nodes")
            }
            return children
        }
    }

    /// `[A-Za-z0-9_]+` (docs/viewpath.md §1).
    public static func isValidAlias(_ alias: String) -> Bool {
        !alias.isEmpty
            && alias.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F
            }
    }
}

/// A view tree that breaks docs/viewpath.md §1; names the node by id or position.
public struct ViewTreeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is, for code that reacts to it.
    public enum Code: String, Sendable, Hashable {
        case invalidJSON, notAnObject, wrongKind, missingType, unknownRole, malformedIndexPath, malformedAlias,
            duplicateID
    }

    public var code: Code
    /// `node "buy" (children[0].children[2])`, `node at children[2].children[0]`, `the root node`
    /// or `the document`.
    public var locator: String
    /// What is wrong and how to fix it.
    public var reason: String

    public init(code: Code, locator: String, reason: String) {
        self.code = code
        self.locator = locator
        self.reason = reason
    }

    public var description: String { "\(locator) \(reason)" }

    /// Names a node by id where it has one (with its position, as ids can repeat in a bad tree),
    /// else by position.
    public static func locator(id: String?, position: String) -> String {
        switch (id, position.isEmpty) {
        case (let id?, true): return "the root node \(JSONValue.string(id).jsonText)"
        case (let id?, false): return "node \(JSONValue.string(id).jsonText) (\(position))"
        case (nil, true): return "the root node"
        case (nil, false): return "node at \(position)"
        }
    }
}
