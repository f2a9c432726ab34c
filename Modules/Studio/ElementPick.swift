public import EventModel
import Foundation

/// "Pointing means the element that is interacted with" (docs/studio.md "Pointing"): a point on
/// a label inside a button chooses the button. The nearest node, from the deepest one under the
/// point upwards, that produces interactions: a control, a list row, or a node with stored
/// interactions on its path. The API's `pick` and the page choose the same node: the tree the
/// page gets (`GET /api/snapshots/{S}`) carries this judgement on each node (`pick`, `event`,
/// `interactions`), and the page walks up to the first node marked `pick`.
public enum ElementPick {
    /// The view event a node's interactions are stored as, when it is a control or a row; nil for
    /// the others (a label, a box, the page).
    public static func event(of node: JSONValue, isRoot: Bool) -> String? {
        guard !isRoot else { return nil }
        if node["role"]?.stringValue == "cell" || isCell(node["path"]?.stringValue ?? "") { return "ListItemClick" }
        let type = node["type"]?.stringValue ?? ""
        func has(_ words: [String]) -> Bool { words.contains { type.range(of: $0, options: .caseInsensitive) != nil } }
        if has(["Switch", "CheckButton", "CheckBox", "Toggle", "Slider", "Scale", "SpinButton", "Stepper", "DropDown", "ComboBox",
            "Segmented", "Picker", "Entry", "TextField"])
        {
            return "ValueChanged"
        }
        if has(["Button", "Link"]) { return "ButtonClick" }
        return nil
    }

    /// True when the path's last index is a cell (`s:r`): a list row.
    static func isCell(_ path: String) -> Bool {
        guard let amp = path.lastIndex(of: "&") else { return false }
        return path[path.index(after: amp)...].split(separator: "-").last?.contains(":") ?? false
    }

    /// The nodes from the root down to the deepest one whose frame holds (x, y), in picture
    /// pixels; later siblings are on top. Empty when the point is outside the root.
    public static func chain(in tree: JSONValue, x: Double, y: Double) -> [JSONValue] {
        var chain: [JSONValue] = []
        var node: JSONValue? = tree
        // Bounded by the tree's depth; a hostile tree is cut at 10,000 levels.
        while let n = node, chain.count < 10_000 {
            if chain.isEmpty, !holds(n, x, y) { return [] }
            chain.append(n)
            node = (n["children"]?.arrayValue ?? []).last { holds($0, x, y) }
        }
        return chain
    }

    static func holds(_ node: JSONValue, _ x: Double, _ y: Double) -> Bool {
        guard let f = node["frame"]?.arrayValue?.compactMap(\.doubleValue), f.count == 4 else { return false }
        return x >= f[0] && y >= f[1] && x < f[0] + f[2] && y < f[1] + f[3]
    }

    /// The node pointing at (x, y) means; nil outside the picture's root. `interactions` are the
    /// stored interactions per path.
    public static func pick(in tree: JSONValue, x: Double, y: Double, interactions: [String: Int]) -> JSONValue? {
        let chain = chain(in: tree, x: x, y: y)
        for (i, node) in chain.enumerated().reversed() where picks(node, isRoot: i == 0, interactions: interactions) { return node }
        return chain.last
    }

    static func picks(_ node: JSONValue, isRoot: Bool, interactions: [String: Int]) -> Bool {
        if event(of: node, isRoot: isRoot) != nil { return true }
        guard !isRoot, let path = node["path"]?.stringValue else { return false }
        return (interactions[path] ?? 0) > 0
    }

    /// `tree` with each node's judgement added: `"pick": true` on the nodes pointing may choose,
    /// `"event"` (the view event its interactions are stored as) and `"interactions"` (stored on
    /// its path, when any). Bounded for hostile trees as `StudioAPI.walk`.
    public static func marked(_ tree: JSONValue, interactions: [String: Int]) -> JSONValue {
        var budget = 1_000_000
        func mark(_ node: JSONValue, isRoot: Bool, depth: Int) -> JSONValue {
            budget -= 1
            guard case .object(var o) = node, budget > 0, depth < 10_000 else { return node }
            if let e = event(of: node, isRoot: isRoot) { o["event"] = .string(e) }
            if let path = node["path"]?.stringValue, let n = interactions[path], n > 0 { o["interactions"] = .int(Int64(n)) }
            if picks(node, isRoot: isRoot, interactions: interactions) { o["pick"] = true }
            if let children = node["children"]?.arrayValue {
                o["children"] = .array(children.map { mark($0, isRoot: false, depth: depth + 1) })
            }
            return .object(o)
        }
        return mark(tree, isRoot: true, depth: 0)
    }
}
