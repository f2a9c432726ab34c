import CGtk
import EventModel
import KVCConfig
import ViewIdentity

/// Walks a page's widgets into §1 JSON (docs/viewpath.md §1, docs/gtk.md "Trees"): `path` and
/// `viewId` on every node, `frame` on every mapped one. The tree files take it as it is; a snapshot
/// (docs/gtk.md "Snapshots") also takes `props` under the privacy rules, and leaves out what its
/// picture cannot show: the inside of unmapped widgets and of pages within the root (each page is
/// a snapshot of its own).
struct GtkTreeCapture {
    /// Whether nodes carry `props`, the privacy rules apply and the tree is trimmed (snapshots).
    let forSnapshot: Bool
    /// The widget whose coordinates frames are in (the page's window).
    let window: GObjectPointer?
    /// Subtracted from every frame: the window's own bounds' origin, so frames are the PNG's pixels.
    let origin: (x: Float, y: Float)
    /// The plan's `ignore` patterns: the views they cover are hidden like `autotrack-ignore` ones.
    let ignoring: [IgnorePattern]
    private var ids: [String: Int] = [:]

    init(window: GObjectPointer?, forSnapshot: Bool, origin: (x: Float, y: Float) = (0, 0), ignoring: [IgnorePattern] = []) {
        self.window = window
        self.forSnapshot = forSnapshot
        self.origin = origin
        self.ignoring = ignoring
    }

    /// The window `root` is shown in.
    static func window(of root: GtkWidgetNode) -> GObjectPointer? {
        root.widget.flatMap { gtk_widget_get_root($0.assumingMemoryBound(to: GtkWidget.self)) }.map { UnsafeMutableRawPointer($0) }
    }

    /// `widget`'s bounds in `window`'s coordinates less `origin`; nil when it has none (unmapped).
    static func frame(of widget: GObjectPointer, in window: GObjectPointer, origin: (x: Float, y: Float)) -> graphene_rect_t? {
        var bounds = graphene_rect_t()
        guard gtk_widget_compute_bounds(
            widget.assumingMemoryBound(to: GtkWidget.self), window.assumingMemoryBound(to: GtkWidget.self), &bounds) != 0
        else { return nil }
        bounds.origin.x -= origin.x
        bounds.origin.y -= origin.y
        return bounds
    }

    /// The tree under `root`. For a snapshot, privacy starts from `root`'s ancestors.
    mutating func tree(_ root: GtkWidgetNode) -> JSONObject {
        var privacy = GtkPrivacy.open
        if forSnapshot, let w = root.widget {
            for ancestor in GtkWidgetNode.selfAndAncestors(of: w).dropFirst() {
                privacy = max(privacy, GtkPrivacy.of(ancestor, ignoring: ignoring))
            }
        }
        return node(root, isRoot: true, privacy: privacy)
    }

    private mutating func node(_ n: GtkWidgetNode, isRoot: Bool, privacy inherited: GtkPrivacy) -> JSONObject {
        var privacy = inherited
        var o = JSONObject()
        o["type"] = .string(n.typeName)
        let role = n.role
        if role != .view { o["role"] = .string(role.rawValue) }
        if role == .cell, let ip = n.cellIndexPath { o["indexPath"] = .array([.int(Int64(ip.section)), .int(Int64(ip.row))]) }
        if role == .controller, let alias = n.pageAlias { o["alias"] = .string(alias) }
        if let id = n.id {
            // Ids are unique in a tree: a repeated name gets `~2`, `~3`… in document order.
            let seen = ids[id, default: 0] + 1
            ids[id] = seen
            o["id"] = .string(seen == 1 ? id : "\(id)~\(seen)")
        }
        if forSnapshot, let w = n.widget { privacy = max(privacy, GtkPrivacy.of(w, ignoring: ignoring)) }
        if privacy != .hidden, let title = n.title { o["title"] = .string(title) }
        let path = n.viewPath
        o["path"] = .string(path.canonical)
        o["viewId"] = .string(path.viewID.hex)
        // A tree file says what each widget can send, for the check (docs/gtk.md "Trees").
        if !forSnapshot, let sendable = GtkEventCodes.sendable(n) {
            o["target"] = .string(sendable.target)
            o["actions"] = .array(sendable.actions.map { .string($0) })
        }
        var shown = false
        if let w = n.widget, let window, gtk_widget_get_mapped(w.assumingMemoryBound(to: GtkWidget.self)) != 0,
            let bounds = GtkTreeCapture.frame(of: w, in: window, origin: origin)
        {
            shown = true
            o["frame"] = .array(
                [bounds.origin.x, bounds.origin.y, bounds.size.width, bounds.size.height].map { .int(Int64($0.rounded())) })
        }
        // A snapshot stops at what its picture cannot show, and at pages inside the root.
        if forSnapshot, !shown || (!isRoot && role == .controller) { return o }
        if forSnapshot, let w = n.widget {
            let props = GtkWidgetProps.props(w, privacy: privacy)
            if !props.isEmpty { o["props"] = .object(props) }
        }
        let children = n.childNodes.compactMap { $0 as? GtkWidgetNode }
        if !children.isEmpty {
            o["children"] = .array(children.map { .object(node($0, isRoot: false, privacy: privacy)) })
        }
        return o
    }
}
