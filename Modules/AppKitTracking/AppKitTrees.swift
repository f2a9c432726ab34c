public import EventModel
import Foundation
public import ObjCRuntime
import SystemCalls
import ViewIdentity

/// A page's tree as view-tree JSON (docs/viewpath.md §1) with `path`, `viewId` and `frame`
/// (`[x, y, width, height]` in the window's pixels, origin at the top left: AppKit's bottom-left
/// coordinates converted), as `--tree-dir` files and pictures take it.
public enum AppKitTrees {
    /// Writes `<directory>/<page name>.json` (replacing an earlier visit's).
    static func write(page: AppKitNode, window: ObjCObject, directory: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = ViewTree.fileName(page: page.pathName)
        let text = JSONValue.object(tree(page: page, window: window, blankTypedText: false)).jsonText + "\n"
        let tmp = directory + "/." + file + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8)) else { return }
        try? Posix.rename(tmp, directory + "/" + file)
    }

    /// The tree of `page`. With `blankTypedText` (pictures), typed and secure text fields, text
    /// views and ignored views keep no title and no children, and their frames are listed in
    /// `blanked` to be painted over.
    public static func tree(page: AppKitNode, window: ObjCObject, blankTypedText: Bool) -> JSONObject {
        var blanked: [ObjCRect] = []
        return tree(page: page, window: window, blankTypedText: blankTypedText, blanked: &blanked)
    }

    public static func tree(page: AppKitNode, window: ObjCObject, blankTypedText: Bool, blanked: inout [ObjCRect]) -> JSONObject {
        let content = (try? window.send(AppKit.contentView)) ?? nil
        let height = content.flatMap { try? $0.rect(AppKit.bounds) }?.height ?? 0
        return node(page, content: content, height: height, blank: blankTypedText, blanked: &blanked)
    }

    private static func node(_ n: AppKitNode, content: ObjCObject?, height: Double, blank: Bool, blanked: inout [ObjCRect]) -> JSONObject {
        var o = JSONObject()
        o["type"] = .string(n.typeName)
        if n.role != .view { o["role"] = .string(n.role.rawValue) }
        if let ip = n.cellIndexPath { o["indexPath"] = .array([.int(Int64(ip.section)), .int(Int64(ip.row))]) }
        if let id = n.id { o["id"] = .string(id) }
        let hidden = blank && (n.ignoresTracking || n.typedText(forKey: "stringValue") != nil || n.typedText(forKey: "string") != nil)
        if !hidden, let title = n.title { o["title"] = .string(title) }
        let path = n.viewPath
        o["path"] = .string(path.canonical)
        o["viewId"] = .string(path.viewID.hex)
        let box = content.flatMap { AppKitTrees.frame(of: n, content: $0, height: height) }
        if let f = box {
            o["frame"] = .array([f.x, f.y, f.width, f.height].map { .int(Int64($0.rounded())) })
        }
        if hidden {
            if let box { blanked.append(box) }
            return o
        }
        let children = n.childNodes.compactMap { $0 as? AppKitNode }
        if !children.isEmpty {
            o["children"] = .array(children.map { .object(node($0, content: content, height: height, blank: blank, blanked: &blanked)) })
        }
        return o
    }

    /// The node's frame in the content view's pixels, top-left origin; nil for hidden views.
    static func frame(of n: AppKitNode, content: ObjCObject, height: Double) -> ObjCRect? {
        var r: ObjCRect
        switch n.kind {
        case .page: r = (try? content.rect(AppKit.bounds)) ?? ObjCRect(x: 0, y: 0, width: 0, height: 0)
        case .view(let v):
            if (try? v.bool(AppKit.isHidden)) == true { return nil }
            guard let bounds = try? v.rect(AppKit.bounds), let inContent = try? v.convert(bounds, to: content) else { return nil }
            r = inContent
        case .matrixCell(let matrix, _, let row, let column):
            guard let cellFrame = try? matrix.cellFrame(row: row, column: column), let inContent = try? matrix.convert(cellFrame, to: content)
            else { return nil }
            r = inContent
        default: return nil
        }
        // Flipped content views already have their origin at the top.
        if (try? content.bool("isFlipped")) != true { r.y = height - r.y - r.height }
        return r
    }
}
