import CGtk
import EventModel
import Hooks
import ViewIdentity

/// Takes snapshots of pages (docs/gtk.md "Snapshots"): after the window's next paint, on the GTK
/// thread, the window is rendered in process from its current render node into a PNG, with the
/// frames of typed text and ignored widgets painted over, and the page's tree of that moment is
/// captured with frames in the PNG's pixels and `props`. The result goes to `send`, which must not
/// block (the sender ships it on a thread of its own).
final class GtkSnapshots {
    private let send: (PageSnapshot) -> Void
    private let clock: any HookClock
    /// Pages waiting for their window's paint, so one paint gives one snapshot of each.
    private var pending: Set<ObjectIdentifier> = []

    /// What blanked frames are painted with: an opaque mid grey.
    private static let blankColor = GdkRGBA(red: 0.62, green: 0.62, blue: 0.62, alpha: 1)

    init(clock: any HookClock, send: @escaping (PageSnapshot) -> Void) {
        self.clock = clock
        self.send = send
    }

    /// Snapshots `page` after its window's next paint.
    func takeAfterNextPaint(_ page: GtkWidgetNode) {
        guard let widget = page.widget, pending.insert(ObjectIdentifier(page)).inserted else { return }
        GtkAfterPaint.run(widget) { [self] in
            pending.remove(ObjectIdentifier(page))
            if let snapshot = take(page) { send(snapshot) }
        }
    }

    /// The snapshot of `page` now; nil when it is not shown in a realized window or rendering failed.
    func take(_ page: GtkWidgetNode) -> PageSnapshot? {
        guard let window = GtkTreeCapture.window(of: page) else { return nil }
        let gtkWindow = window.assumingMemoryBound(to: GtkWidget.self)
        guard gtk_widget_get_mapped(gtkWindow) != 0 else { return nil }
        var bounds = graphene_rect_t()
        guard gtk_widget_compute_bounds(gtkWindow, gtkWindow, &bounds) != 0 else { return nil }
        let width = Int(bounds.size.width.rounded(.up))
        let height = Int(bounds.size.height.rounded(.up))
        guard width > 0, height > 0 else { return nil }
        var capture = GtkTreeCapture(window: window, forSnapshot: true, origin: (bounds.origin.x, bounds.origin.y))
        let tree = capture.tree(page)
        let capturedAt = clock.wallMilliseconds()
        let blanked = capture.blanked
        var color = GtkSnapshots.blankColor
        guard let bytes = blanked.withUnsafeBufferPointer({ rects in
            cgtk_render_png(gtkWindow, Int32(width), Int32(height), rects.baseAddress, guint(rects.count), &color)
        }) else { return nil }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return nil }
        let png = Array(UnsafeRawBufferPointer(start: data, count: Int(size)))
        return PageSnapshot(page: page.pathName, capturedAt: capturedAt, width: width, height: height, png: png, tree: tree)
    }
}
