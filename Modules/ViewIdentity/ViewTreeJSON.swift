public import EventModel

extension ViewTree {
    /// The subtree at `node` as view tree JSON (docs/viewpath.md §1), the form `ViewTree(json:)` reads back.
    ///
    /// Writes `type`, then `role` (unless `view`), `indexPath` (cells), `alias` (controllers, when
    /// it is `[A-Za-z0-9_]+`), `id` (tree nodes that have one), `title`, `props` and `children`,
    /// each only where there is something to write. Every node below `node` keeps its viewPath,
    /// as long as `node` is a controller or the topmost node of its tree (paths root there).
    public static func json(of node: any ViewNode) -> JSONValue {
        var o = fields(of: node)
        if let props = node.props, case .object = props { o["props"] = props }
        let children = node.childNodes
        if !children.isEmpty { o["children"] = .array(children.map { json(of: $0) }) }
        return .object(o)
    }

    /// A node's own fields, as `json(of:)` writes them before `props` and `children`: `type`,
    /// `role`, `indexPath`, `alias`, `id`, `title`.
    public static func fields(of node: any ViewNode) -> JSONObject {
        var o = JSONObject()
        o["type"] = .string(node.typeName)
        if node.role != .view { o["role"] = .string(node.role.rawValue) }
        if node.role == .cell, let ip = node.cellIndexPath {
            o["indexPath"] = .array([.int(Int64(ip.section)), .int(Int64(ip.row))])
        }
        if node.role == .controller, let alias = node.pageAlias, isValidAlias(alias) {
            o["alias"] = .string(alias)
        }
        if let tree = node as? TreeNode, let id = tree.id { o["id"] = .string(id) }
        if let title = node.title { o["title"] = .string(title) }
        return o
    }

    /// The file a page's tree is written to, by page name (`DetailViewController(gift)` →
    /// `DetailViewController(gift).json`): any character but ASCII letters, digits and `_().-`
    /// becomes `_`, and a name that is empty or starts with `.` gets `page` in front (no hidden files).
    public static func fileName(page: String) -> String {
        let safe = String(
            page.unicodeScalars.map { c -> Character in
                let kept = c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c) || "_().-".unicodeScalars.contains(c))
                return kept ? Character(c) : "_"
            })
        return (safe.isEmpty || safe.hasPrefix(".") ? "page" + safe : safe) + ".json"
    }
}
