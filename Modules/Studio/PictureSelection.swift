public import EventModel
import ViewIdentity

/// Which nodes of a picture's tree a rule selects: those whose `path` its `viewPath` pattern
/// matches and, when it has `content`, whose `title` (or value at its `keyPath` in `props`) is
/// that content. The same test the agents make at interaction time, over the picture instead.
public struct PictureSelection: Sendable {
    let pattern: PathPattern
    let content: String?
    let keyPath: String?

    /// Nil when `rule` has no `viewPath` or it is not a pattern.
    public init?(rule: JSONValue) {
        guard let text = rule["viewPath"]?.stringValue, let pattern = try? PathPattern(text) else { return nil }
        self.pattern = pattern
        content = rule["content"]?.stringValue
        keyPath = rule["keyPath"]?.stringValue
    }

    /// The page the pattern's paths root at (its first element's name, an alias included).
    public var page: String? { pattern.names.first }

    /// The selected nodes' paths, in tree order (depth first, parents before children).
    public func paths(in tree: JSONValue) -> [String] {
        var selected: [String] = []
        var stack: [JSONValue] = [tree]
        var visited = 0
        // Bounded: a tree is finite, but a hostile one need not be small.
        while let node = stack.popLast(), visited < 1_000_000 {
            visited += 1
            if let path = node["path"]?.stringValue, let canonical = try? ViewPath(canonical: path), pattern.matches(canonical),
                shows(node)
            {
                selected.append(path)
            }
            if let children = node["children"]?.arrayValue { stack.append(contentsOf: children.reversed()) }
        }
        return selected
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
