import CGtk
import EventModel
import Foundation
import ViewIdentity

/// Writes an entered page's widget tree as view-tree JSON (docs/view-identity.md §1), so that
/// configuration authors write rules against a real app's screens (docs/gtk.md "Trees").
///
/// Written once the page has been laid out and painted, so `frame` holds real positions.
final class GtkTreeWriter {
    let directory: String

    init(directory: String) {
        self.directory = directory
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Writes `page`'s tree after its window's next paint (at once when it has no frame clock).
    func writeAfterNextPaint(_ page: GtkWidgetNode) {
        guard let widget = page.widget else { return }
        guard let clock = gtk_widget_get_frame_clock(widget.assumingMemoryBound(to: GtkWidget.self)) else {
            write(page)
            return
        }
        let pending = PendingWrite(writer: self, page: page, clock: UnsafeMutableRawPointer(clock))
        let clockObject = UnsafeMutableRawPointer(clock)
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<PendingWrite>.fromOpaque(data).takeUnretainedValue().fire()
        }
        pending.handlerID = g_signal_connect_data(
            clockObject, "after-paint", unsafeBitCast(handler, to: GCallback.self), Unmanaged.passRetained(pending).toOpaque(),
            { data, _ in
                guard let data else { return }
                Unmanaged<PendingWrite>.fromOpaque(data).release()
            }, GConnectFlags(rawValue: 0))
        gtk_widget_queue_draw(widget.assumingMemoryBound(to: GtkWidget.self))
    }

    /// Writes `<directory>/<page name>.json` now (replacing the one of an earlier visit).
    func write(_ page: GtkWidgetNode) {
        let file = ViewTree.fileName(page: page.pathName)
        var text = GtkTreeWriter.tree(page).jsonText
        text += "\n"
        let tmp = directory + "/." + file + ".tmp"
        guard FileManager.default.createFile(atPath: tmp, contents: Data(text.utf8)) else { return }
        _ = rename(tmp, directory + "/" + file)
    }

    /// The tree under `root` as §1 JSON, with `path` and `viewId` (extensions) on every node and
    /// `frame` (`[x, y, width, height]` in window coordinates) on every mapped one.
    static func tree(_ root: GtkWidgetNode) -> JSONValue {
        var ids: [String: Int] = [:]
        let window = root.widget.flatMap { gtk_widget_get_root($0.assumingMemoryBound(to: GtkWidget.self)) }
        return node(root, window: window.map { UnsafeMutableRawPointer($0) }, ids: &ids)
    }

    private static func node(_ n: GtkWidgetNode, window: GObjectPointer?, ids: inout [String: Int]) -> JSONValue {
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
        if let title = n.title { o["title"] = .string(title) }
        let path = n.viewPath
        o["path"] = .string(path.canonical)
        o["viewId"] = .string(path.viewID.hex)
        if let w = n.widget, let window, gtk_widget_get_mapped(w.assumingMemoryBound(to: GtkWidget.self)) != 0 {
            var bounds = graphene_rect_t()
            if gtk_widget_compute_bounds(
                w.assumingMemoryBound(to: GtkWidget.self), window.assumingMemoryBound(to: GtkWidget.self), &bounds) != 0
            {
                o["frame"] = .array(
                    [bounds.origin.x, bounds.origin.y, bounds.size.width, bounds.size.height].map { .int(Int64($0.rounded())) })
            }
        }
        let children = n.childNodes.compactMap { $0 as? GtkWidgetNode }
        if !children.isEmpty { o["children"] = .array(children.map { node($0, window: window, ids: &ids) }) }
        return .object(o)
    }
}

/// One tree waiting for its window's next paint.
private final class PendingWrite {
    let writer: GtkTreeWriter
    let page: GtkWidgetNode
    let clock: GObjectPointer
    var handlerID: gulong = 0

    init(writer: GtkTreeWriter, page: GtkWidgetNode, clock: GObjectPointer) {
        self.writer = writer
        self.page = page
        self.clock = clock
    }

    func fire() {
        let id = handlerID
        handlerID = 0
        guard id != 0 else { return }
        writer.write(page)
        g_signal_handler_disconnect(clock, id)
    }
}
