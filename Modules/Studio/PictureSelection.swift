public import EventModel
import ViewIdentity

/// Which nodes of a picture's tree a rule selects: those whose `path` one of its patterns
/// (`viewPath`, `alsoViewPaths`) matches and, when it has `content`, whose `title` (or value at its `keyPath` in `props`) is
/// that content. The same test the agents make at interaction time, over the picture instead.
public struct PictureSelection: Sendable {
    /// `viewPath` first.
    let patterns: [PathPattern]
    let content: String?
    let keyPath: String?

    /// Nil when `rule` has no `viewPath` or it is not a pattern (an `alsoViewPaths` entry that is
    /// none is left out: the codec refuses such a rule before it is stored).
    public init?(rule: JSONValue) {
        guard let text = rule["viewPath"]?.stringValue, let pattern = try? PathPattern(text) else { return nil }
        let also = (rule["alsoViewPaths"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap { try? PathPattern($0) } }
        patterns = [pattern] + also
        content = rule["content"]?.stringValue
        keyPath = rule["keyPath"]?.stringValue
    }

    /// The page `viewPath`'s paths root at (its first element's name, an alias included).
    public var page: String? { patterns[0].names.first }

    /// Every page the patterns root at, `page` first, each once.
    public var pages: [String] {
        var out: [String] = []
        for p in patterns { if let n = p.names.first, !out.contains(n) { out.append(n) } }
        return out
    }

    /// The selected nodes' paths, in tree order (depth first, parents before children).
    public func paths(in tree: JSONValue) -> [String] { paths(in: PictureNodes(tree)) }

    /// The same over a tree read once (`PictureNodes`): a picture's tree serves many rules.
    public func paths(in nodes: PictureNodes) -> [String] {
        nodes.nodes.filter { n in patterns.contains(where: { $0.matches(n.canonical) }) && shows(n.node) }.map(\.path)
    }

    private func shows(_ node: JSONValue) -> Bool {
        guard let content else { return true }
        if node["title"]?.stringValue == content { return true }
        if let keyPath, let value = node["props"]?[keyPath], Self.text(value) == content { return true }
        return false
    }

    /// A scalar's text as a rule's content compares it (`42`, `true`, `red`).
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .bool, .int, .double: return value.jsonText
        default: return nil
        }
    }
}

/// A picture's nodes with a path, each path read once, in tree order (depth first, parents before
/// children); at most a million nodes are visited (a tree is finite, but a hostile one need not be small).
public struct PictureNodes: Sendable {
    struct Node: Sendable {
        let path: String
        let canonical: ViewPath
        let node: JSONValue
    }

    let nodes: [Node]

    public init(_ tree: JSONValue) {
        var out: [Node] = []
        var stack: [JSONValue] = [tree]
        var visited = 0
        while let node = stack.popLast(), visited < 1_000_000 {
            visited += 1
            if let path = node["path"]?.stringValue, let canonical = try? ViewPath(canonical: path) {
                // Children are not kept with their parent: each node's own fields are what a rule compares.
                var own = node
                if case .object(var o) = own {
                    o["children"] = nil
                    own = .object(o)
                }
                out.append(Node(path: path, canonical: canonical, node: own))
            }
            if let children = node["children"]?.arrayValue { stack.append(contentsOf: children.reversed()) }
        }
        nodes = out
    }
}
