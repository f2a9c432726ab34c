import EventModel
import PNGImage
public import ViewIdentity

/// Snapshots of the simulated shop's pages (docs/agent.md "Snapshots"). The model has no layout,
/// so frames come from a simple one, and the picture draws them: each node is a box as wide as its
/// parent less a margin, its title on its first line and its children stacked below, top to bottom.
/// The tree carries §1's fields with `path`, `viewId`, `frame` (the picture's pixels) and `props`
/// (the node's stored scalar properties and those of its stored structs, and its `props` data, by
/// key path). Privacy (docs/privacy.md): an ignored view (marked `autotrack-ignore`, or one
/// `ignoring` names) is a grey box with everything inside it, without title or props; typed text
/// (a text field's `text`) is never in `props`.
public enum SimulatedSnapshot {
    /// The picture's width; its height is the page's.
    public static let width = 360
    /// The tallest picture drawn; boxes below are cut off (their frames stay).
    public static let maxHeight = 4000

    private static let margin = 6
    private static let gap = 4
    private static let titleLine = 18
    private static let leafHeight = 28

    /// What an ignored view is painted with.
    static let blank = RGBColor(red: 158, green: 158, blue: 158)

    /// The snapshot of `page` (a controller, the root of its paths) now; `ignoring` says whether
    /// the plan's `ignore` patterns cover a path.
    public static func take(
        _ page: any ViewNode, capturedAt: Int64, ignoring: (ViewPath) -> Bool = { _ in false }
    ) -> PageSnapshot {
        let height = min(maxHeight, max(1, self.height(of: page)))
        var image = RGBImage(width: width, height: height, background: RGBColor(red: 250, green: 250, blue: 250))
        // A page inside a marked view is hidden from the start (a pattern covers its subtree by itself).
        let above = page.parentNode?.isInIgnoredView ?? false
        let tree = node(page, x: 0, y: 0, width: width, depth: 0, hidden: above, ignoring: ignoring, image: &image)
        return PageSnapshot(page: page.pathName, capturedAt: capturedAt, width: width, height: height, png: image.png, tree: tree)
    }

    private static func height(of node: any ViewNode) -> Int {
        let children = node.childNodes
        guard !children.isEmpty else { return leafHeight }
        let header = node.title == nil ? margin : titleLine
        return header + children.map { height(of: $0) }.reduce(0, +) + gap * (children.count - 1) + margin
    }

    private static func node(
        _ n: any ViewNode, x: Int, y: Int, width w: Int, depth: Int, hidden inherited: Bool, ignoring: (ViewPath) -> Bool,
        image: inout RGBImage
    ) -> JSONObject {
        let h = height(of: n)
        let path = n.viewPath
        let hidden = inherited || n.ignoresTracking || ignoring(path)
        if hidden {
            // Painted over the whole subtree (once, at its top, or at the page when it is inside one).
            if !inherited || depth == 0 { image.fill(x: x, y: y, width: w, height: h, blank) }
        } else {
            draw(n, x: x, y: y, width: w, height: h, depth: depth, image: &image)
        }
        var o = ViewTree.fields(of: n)
        o["path"] = .string(path.canonical)
        o["viewId"] = .string(path.viewID.hex)
        o["frame"] = .array([x, y, w, h].map { .int(Int64($0)) })
        if hidden {
            o["title"] = nil
        } else {
            let props = self.props(of: n)
            if !props.isEmpty { o["props"] = .object(props) }
        }
        let children = n.childNodes
        if !children.isEmpty {
            var top = y + (n.title == nil ? margin : titleLine)
            var out: [JSONValue] = []
            for c in children {
                out.append(
                    .object(
                        node(
                            c, x: x + margin, y: top, width: max(1, w - 2 * margin), depth: depth + 1, hidden: hidden,
                            ignoring: ignoring, image: &image)))
                top += height(of: c) + gap
            }
            o["children"] = .array(out)
        }
        return o
    }

    private static func draw(_ n: any ViewNode, x: Int, y: Int, width w: Int, height h: Int, depth: Int, image: inout RGBImage) {
        let control = n.typeName.hasSuffix("Button") || n.typeName.hasSuffix("Switch") || n.typeName.hasSuffix("Stepper")
            || n.typeName.hasSuffix("Control")
        let shade = UInt8(245 - min(depth, 8) * 8)
        let fill = control ? RGBColor(red: 52, green: 120, blue: 246) : RGBColor(red: shade, green: shade, blue: 255 - UInt8(min(depth, 8) * 3))
        image.fill(x: x, y: y, width: w, height: h, fill)
        image.stroke(x: x, y: y, width: w, height: h, RGBColor(red: 150, green: 150, blue: 160))
        let text = n.title ?? (n.childNodes.isEmpty ? n.pathName : nil)
        if let text {
            image.draw(text: text, x: x + 4, y: y + 5, maxWidth: w - 8, control ? .white : RGBColor(red: 40, green: 40, blue: 40))
        }
    }

    /// The node's readable key paths with scalar values: its own stored properties (not those of
    /// the classes it derives from), one step into stored structs (`product.id`), and its `props`;
    /// never typed text (the keys a `TypedTextHolding` node says reveal it).
    static func props(of n: any ViewNode) -> JSONObject {
        var out = JSONObject()
        let typed = n as? any TypedTextHolding
        for child in Mirror(reflecting: n).children {
            guard let label = child.label, !label.hasPrefix("_"), typed?.typedText(forKey: label) == nil else { continue }
            if let v = scalar(child.value) {
                out[label] = v
            } else if Mirror(reflecting: child.value).displayStyle == .struct {
                for part in Mirror(reflecting: child.value).children {
                    if let name = part.label, let v = scalar(part.value) { out[label + "." + name] = v }
                }
            }
        }
        if let props = n.props { flatten(props, prefix: "", depth: 0, into: &out) }
        return out
    }

    private static func scalar(_ value: Any) -> JSONValue? {
        switch value {
        case let s as String: return .string(s)
        case let b as Bool: return .bool(b)
        case let i as Int: return .int(Int64(i))
        case let d as Double where d.isFinite: return .double(d)
        default: return nil
        }
    }

    private static func flatten(_ value: JSONValue, prefix: String, depth: Int, into out: inout JSONObject) {
        switch value {
        case .object(let o) where depth < 4:
            for (k, v) in o { flatten(v, prefix: prefix + k + ".", depth: depth + 1, into: &out) }
        case .array(let a) where depth < 4:
            for (i, v) in a.enumerated() { flatten(v, prefix: prefix + String(i) + ".", depth: depth + 1, into: &out) }
        case .string, .int, .double, .bool:
            if !prefix.isEmpty { out[String(prefix.dropLast())] = value }
        default: break
        }
    }
}
