import CGtk
import EventModel
import Interactions
import KVCConfig
import ViewIdentity

/// Takes snapshots of pages (docs/gtk.md "Snapshots"): after the window's next paint, on the GTK
/// thread, the window is rendered in process from its current render node into a PNG, with the
/// frames of typed text and ignored widgets painted over, and the page's tree of that moment is
/// captured with frames in the PNG's pixels and `props`. The result goes to `send`, which must not
/// block (the sender ships it on a thread of its own).
final class GtkSnapshots {
    private let send: (PageSnapshot) -> Void
    private let clock: any InteractionClock
    /// The plan's `ignore` patterns now (they change with remote rules): covered views are blanked.
    private let ignorePatterns: () -> [IgnorePattern]
    /// The frame each page was last taken at, so one paint gives one snapshot of a page however
    /// often it was asked for (a page entered and its window mapped in the same frame).
    private var takenAtFrame: [ObjectIdentifier: Int] = [:]
    /// The last picture rendered: pages of one window taken after the same paint share it.
    private var picture: Picture?

    private struct Picture {
        let window: GObjectPointer
        let frame: Int
        let width: Int
        let height: Int
        let png: [UInt8]
    }

    /// What blanked frames are painted with: an opaque mid grey.
    private static let blankColor = GdkRGBA(red: 0.62, green: 0.62, blue: 0.62, alpha: 1)

    init(clock: any InteractionClock, ignorePatterns: @escaping () -> [IgnorePattern] = { [] }, send: @escaping (PageSnapshot) -> Void) {
        self.clock = clock
        self.ignorePatterns = ignorePatterns
        self.send = send
    }

    /// Snapshots `page` after its window's next paint.
    func takeAfterNextPaint(_ page: GtkWidgetNode) {
        guard let widget = page.widget else { return }
        GtkAfterPaint.run(widget) { [self] in
            let frame = GtkSnapshots.frameCounter(of: page.widget)
            let key = ObjectIdentifier(page)
            guard frame < 0 || takenAtFrame[key] != frame else { return }
            takenAtFrame[key] = frame
            if let snapshot = take(page) { send(snapshot) }
        }
    }

    /// The number of the frame `widget`'s window last painted; -1 without a frame clock.
    private static func frameCounter(of widget: GObjectPointer?) -> Int {
        widget.flatMap { gtk_widget_get_frame_clock($0.assumingMemoryBound(to: GtkWidget.self)) }
            .map { Int(gdk_frame_clock_get_frame_counter($0)) } ?? -1
    }

    /// The snapshot of `page` now; nil when it is not shown in a realized window or rendering failed.
    func take(_ page: GtkWidgetNode) -> PageSnapshot? {
        // A page its stack no longer shows (switched before the paint) is not in the picture.
        guard let widget = page.widget, gtk_widget_get_mapped(widget.assumingMemoryBound(to: GtkWidget.self)) != 0,
            let window = GtkTreeCapture.window(of: page)
        else { return nil }
        let gtkWindow = window.assumingMemoryBound(to: GtkWidget.self)
        guard gtk_widget_get_mapped(gtkWindow) != 0 else { return nil }
        var bounds = graphene_rect_t()
        guard gtk_widget_compute_bounds(gtkWindow, gtkWindow, &bounds) != 0 else { return nil }
        let origin = (x: bounds.origin.x, y: bounds.origin.y)
        let capturedAt = clock.wallMilliseconds()
        let ignoring = ignorePatterns()
        guard let picture = picture(of: window, bounds: bounds, ignoring: ignoring) else { return nil }
        var capture = GtkTreeCapture(window: window, forSnapshot: true, origin: origin, ignoring: ignoring)
        let tree = capture.tree(page)
        return PageSnapshot(
            page: page.pathName, capturedAt: capturedAt, width: picture.width, height: picture.height, png: picture.png, tree: tree)
    }

    /// The window as last painted, as a PNG: rendered once per frame.
    private func picture(of window: GObjectPointer, bounds: graphene_rect_t, ignoring: [IgnorePattern]) -> Picture? {
        let frame = GtkSnapshots.frameCounter(of: window)
        if let picture, picture.window == window, picture.frame == frame, frame >= 0 { return picture }
        let width = Int(bounds.size.width.rounded(.up))
        let height = Int(bounds.size.height.rounded(.up))
        guard width > 0, height > 0 else { return nil }
        let blanked = GtkPrivacy.blankedFrames(in: window, origin: (bounds.origin.x, bounds.origin.y), ignoring: ignoring)
        var color = GtkSnapshots.blankColor
        guard let bytes = blanked.withUnsafeBufferPointer({ rects in
            cgtk_render_png(window.assumingMemoryBound(to: GtkWidget.self), Int32(width), Int32(height), rects.baseAddress,
                guint(rects.count), &color)
        }) else { return nil }
        defer { g_bytes_unref(bytes) }
        var size: gsize = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return nil }
        let made = Picture(
            window: window, frame: frame, width: width, height: height, png: Array(UnsafeRawBufferPointer(start: data, count: Int(size))))
        picture = made
        return made
    }
}
