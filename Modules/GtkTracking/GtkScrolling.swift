import CGtk
import Interactions
import ViewIdentity

/// Scrolls the user made (docs/gtk.md "Scrolling"): one `scroll` interaction when a
/// `GtkScrolledWindow` the user moved comes to rest (no movement for 300 ms), on the scrolled
/// window, with its offset, the larger movement's direction since the last rest, and the depth:
/// the largest share of its content height seen in this page visit.
///
/// Every scrolled window is watched from its first `map`: its two adjustments are known by
/// address, and the process-wide hook on `GtkAdjustment::value-changed` finds its scrolled window
/// through them. A movement begins a streak only while GTK handles an input event aimed inside the
/// scrolled window (a wheel or touchpad scroll, a key, a scrollbar drag: `GtkInputGate`); while a
/// streak lasts, every movement is its own (kinetic deceleration, animated scrolling), and the
/// streak ends at rest. Movements with no streak (the app's own scrolling, content that grows or
/// shrinks) give nothing. Use on the GTK thread.
final class GtkScrolling {
    /// No movement for this long: the view is at rest.
    static let restMilliseconds: UInt32 = 300

    /// One scrolled window, watched from its first `map` for the rest of the process.
    final class Watch {
        /// The scrolled window's node: it outlives the widget, whose finalization detaches it.
        let node: GtkWidgetNode
        /// The last offset seen, whoever moved it.
        var x: Double
        var y: Double
        /// The streak since the last rest; nil while the view is at rest.
        var streak: ScrollStreak?
        var timer: guint = 0
        /// The largest share of the content height seen in this page visit; nil: none yet.
        var depth: Double?

        init(node: GtkWidgetNode, x: Double, y: Double) {
            self.node = node
            self.x = x
            self.y = y
        }
    }

    private let gate: GtkInputGate
    private let clock: any InteractionClock
    private let report: (Interaction) -> Void
    /// The watched scrolled windows by their widget's address.
    private var watches: [UInt: Watch] = [:]
    /// Each watched scrolled window's adjustments by address (checked at each use: an address
    /// may be reused by another adjustment once the first is finalized).
    private var byAdjustment: [UInt: Watch] = [:]

    init(gate: GtkInputGate, clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        self.gate = gate
        self.clock = clock
        self.report = report
    }

    /// A scrolled window was mapped: watch it (again, with its adjustments of now).
    func watch(_ scrolledWindow: GObjectPointer) {
        let key = UInt(bitPattern: scrolledWindow)
        let (h, v) = GtkScrolling.adjustments(of: scrolledWindow)
        let existing = watches[key].flatMap { $0.node.widget == scrolledWindow ? $0 : nil }
        let watch =
            existing
            ?? Watch(
                node: GtkWidgetNode.node(for: scrolledWindow), x: h.map { gtk_adjustment_get_value($0) } ?? 0,
                y: v.map { gtk_adjustment_get_value($0) } ?? 0)
        watches[key] = watch
        for adjustment in [h, v].compactMap({ $0 }) { byAdjustment[UInt(bitPattern: UnsafeMutableRawPointer(adjustment))] = watch }
    }

    /// An adjustment's value changed (the emission hook, before its handlers).
    func adjustmentChanged(_ adjustment: GObjectPointer) {
        guard let watch = byAdjustment[UInt(bitPattern: adjustment)] else { return }
        guard let window = watch.node.widget else {
            byAdjustment[UInt(bitPattern: adjustment)] = nil
            return
        }
        let (h, v) = GtkScrolling.adjustments(of: window)
        guard h.map({ UnsafeMutableRawPointer($0) }) == adjustment || v.map({ UnsafeMutableRawPointer($0) }) == adjustment else {
            byAdjustment[UInt(bitPattern: adjustment)] = nil
            return
        }
        let x = h.map { gtk_adjustment_get_value($0) } ?? 0
        let y = v.map { gtk_adjustment_get_value($0) } ?? 0
        defer { (watch.x, watch.y) = (x, y) }
        if watch.streak == nil {
            guard gate.allows(window) else { return }
            watch.streak = ScrollStreak(x: watch.x, y: watch.y)
            watch.depth = max(watch.depth ?? 0, GtkScrolling.share(v, at: watch.y))
        }
        watch.streak?.step(toX: x, y: y)
        restartTimer(watch)
    }

    /// A page was entered: scrolled windows inside it start a new visit (their depth forgotten).
    func pageEntered(_ page: GObjectPointer) {
        let pageWidget = page.assumingMemoryBound(to: GtkWidget.self)
        for watch in watches.values {
            guard let w = watch.node.widget else { continue }
            let widget = w.assumingMemoryBound(to: GtkWidget.self)
            if widget == pageWidget || gtk_widget_is_ancestor(widget, pageWidget) != 0 { watch.depth = nil }
        }
    }

    /// Reports every view still moving as at rest now (the app is ending).
    func restAll() {
        for watch in watches.values where watch.streak != nil {
            if watch.timer != 0 { g_source_remove(watch.timer) }
            watch.timer = 0
            rest(watch)
        }
    }

    private func restartTimer(_ watch: Watch) {
        if watch.timer != 0 { g_source_remove(watch.timer) }
        let context = RestContext(scrolling: self, watch: watch)
        watch.timer = g_timeout_add_full(
            Int32(G_PRIORITY_DEFAULT), GtkScrolling.restMilliseconds,
            { data in
                guard let data else { return 0 }
                let context = Unmanaged<RestContext>.fromOpaque(data).takeUnretainedValue()
                context.watch.timer = 0
                context.scrolling?.rest(context.watch)
                return 0
            }, Unmanaged.passRetained(context).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<RestContext>.fromOpaque(data).release()
            })
    }

    /// The streak ends: one `scroll` interaction, unless the widget is gone or nothing moved.
    private func rest(_ watch: Watch) {
        guard let streak = watch.streak else { return }
        watch.streak = nil
        guard let window = watch.node.widget, streak.moved else { return }
        let (_, v) = GtkScrolling.adjustments(of: window)
        let depth = max(watch.depth ?? 0, GtkScrolling.share(v, at: watch.y))
        watch.depth = depth
        let node = watch.node
        let location = ViewLocation(of: node)
        let placement = location.placement
        var interaction = Interaction(
            kind: .scroll, node: node,
            eventCode: GtkEventCodes.code(sender: node, page: placement.codeController, signal: "value-changed"),
            title: nil, page: placement.page ?? placement.codeController, timestamp: clock.wallMilliseconds())
        interaction.scrollRest = streak.rest(depth: depth)
        interaction.knownPath = location.path
        interaction.knownNodeTitle = .some(nil)
        report(interaction)
    }

    /// `(offset + viewport height) / content height` of a vertical adjustment at `offset`, 0 to 1;
    /// 1 when the content is no taller than the viewport (all of it is seen), or there is no adjustment.
    static func share(_ vertical: UnsafeMutablePointer<GtkAdjustment>?, at offset: Double) -> Double {
        guard let vertical else { return 1 }
        let upper = gtk_adjustment_get_upper(vertical) - gtk_adjustment_get_lower(vertical)
        let page = gtk_adjustment_get_page_size(vertical)
        guard upper > page, upper > 0 else { return 1 }
        return min(1, max(0, (offset - gtk_adjustment_get_lower(vertical) + page) / upper))
    }

    /// A scrolled window's horizontal and vertical adjustments.
    static func adjustments(
        of scrolledWindow: GObjectPointer
    ) -> (UnsafeMutablePointer<GtkAdjustment>?, UnsafeMutablePointer<GtkAdjustment>?) {
        let sw = OpaquePointer(scrolledWindow)
        return (gtk_scrolled_window_get_hadjustment(sw), gtk_scrolled_window_get_vadjustment(sw))
    }
}

/// What a rest timer needs: the watch, and the scrolling that reports (which lives for the rest
/// of the process once the hooks start).
private final class RestContext {
    weak var scrolling: GtkScrolling?
    let watch: GtkScrolling.Watch

    init(scrolling: GtkScrolling, watch: GtkScrolling.Watch) {
        self.scrolling = scrolling
        self.watch = watch
    }
}
