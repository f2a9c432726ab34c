import CGtk
import Interactions
import ViewIdentity

/// Impressions in a GTK application (docs/gtk.md "Impressions"): while the observer has impression
/// rules, a GLib timer on the GTK main loop looks at every mapped toplevel window every 100 ms and
/// hands `ImpressionWatcher` each widget whose type an impression rule names, with the share of
/// its bounds inside the window and inside every scrolling ancestor (`GtkScrolledWindow`, and each
/// `GtkScrollable`: `GtkViewport`, `GtkListView`, `GtkGridView`, `GtkColumnView`, `GtkTextView`).
/// List rows count as they scroll in: a `GtkListBoxRow` or list view row is known by its path with
/// its row index.
///
/// Without impression rules there is no timer and no walk: the rules' changes (told from the
/// config refresher's thread) reach the GTK thread through an idle callback that starts or stops it.
final class GtkImpressions {
    /// How often the windows are looked at, in milliseconds.
    static let interval: UInt32 = 100

    let watcher: ImpressionWatcher
    private var timer: guint = 0
    private var started = false
    /// Whether the rules' changes are already followed (once per process, whatever the restarts).
    private var listening = false
    /// The type names of `watcher.elementNames` (a page's name without its alias): widgets of
    /// other types are not even given a node.
    private var typeNames: Set<String> = []
    /// Whether a widget type is one of `typeNames`, by GType as first met (cleared when the rules change).
    private var typeWatched: [GType: Bool] = [:]

    init(rules: any ImpressionRules, clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        watcher = ImpressionWatcher(rules: rules, clock: clock, report: report)
    }

    /// Starts watching (on the GTK thread): now if rules exist, else when rules arrive. The
    /// object must live for the rest of the process (the hook system keeps it).
    func start() {
        guard !started else { return }
        started = true
        defer { rulesChanged() }
        guard !listening else { return }
        listening = true
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        watcher.rules.onImpressionRulesChange {
            _ = g_idle_add_full(
                Int32(G_PRIORITY_DEFAULT_IDLE),
                { data in
                    guard let data else { return 0 }
                    Unmanaged<GtkImpressions>.fromOpaque(data).takeUnretainedValue().rulesChanged()
                    return 0
                }, UnsafeMutableRawPointer(bitPattern: address), nil)
        }
    }

    /// Stops the timer; nothing is watched any more.
    func stop() {
        started = false
        rulesChanged()
    }

    func pageEntered(_ page: GtkWidgetNode) {
        watcher.pageEntered(page)
    }

    /// Reads the rules again; starts the timer when some apply, stops it when none do.
    private func rulesChanged() {
        let watching = started && watcher.rulesChanged()
        typeNames = Set(watcher.elementNames.map { name in name.firstIndex(of: "(").map { String(name[..<$0]) } ?? name })
        typeWatched = [:]
        if watching, timer == 0 {
            timer = g_timeout_add_full(
                Int32(G_PRIORITY_DEFAULT), GtkImpressions.interval,
                { data in
                    guard let data else { return 0 }
                    Unmanaged<GtkImpressions>.fromOpaque(data).takeUnretainedValue().look()
                    return 1
                }, Unmanaged.passUnretained(self).toOpaque(), nil)
        } else if !watching, timer != 0 {
            g_source_remove(timer)
            timer = 0
        }
    }

    /// One look at every mapped toplevel window.
    func look() {
        var sightings: [ImpressionWatcher.Sighting] = []
        for window in GtkHookSystem.toplevels() where gtk_widget_get_mapped(window.assumingMemoryBound(to: GtkWidget.self)) != 0 {
            guard let bounds = GtkTreeCapture.frame(of: window, in: window, origin: (0, 0)) else { continue }
            collect(inside: window, at: (0, 0), clip: GtkImpressions.rect(bounds), into: &sightings)
        }
        watcher.look(at: sightings)
    }

    /// The mapped widgets below `parent` whose type a rule names, each with the share of its bounds
    /// inside `clip` (window coordinates: what the window and the scrolling ancestors show). A
    /// widget entirely outside `clip` is skipped with everything inside it. `origin`: where
    /// `parent`'s (0, 0) lies in the window; each child's bounds are computed against its parent
    /// (one step, not a walk up to the window) and moved by it.
    private func collect(
        inside parent: GObjectPointer, at origin: (x: Double, y: Double), clip: ViewRect,
        into out: inout [ImpressionWatcher.Sighting]
    ) {
        var child = gtk_widget_get_first_child(parent.assumingMemoryBound(to: GtkWidget.self))
        // Bounded by the number of children GTK holds.
        while let c = child {
            child = gtk_widget_get_next_sibling(c)
            guard gtk_widget_get_mapped(c) != 0 else { continue }
            let widget = UnsafeMutableRawPointer(c)
            guard let bounds = GtkTreeCapture.frame(of: widget, in: parent, origin: (0, 0)) else { continue }
            let rect = GtkImpressions.rect(bounds).offsetBy(dx: origin.x, dy: origin.y)
            let fraction = rect.fraction(visibleIn: clip)
            guard fraction > 0 else { continue }
            if isWatched(widget) {
                out.append(ImpressionWatcher.Sighting(node: GtkWidgetNode.node(for: widget), fraction: fraction))
            }
            collect(
                inside: widget, at: (rect.x, rect.y), clip: GtkImpressions.scrolls(widget) ? clip.intersection(rect) : clip,
                into: &out)
        }
    }

    /// Whether `widget`'s type is one an impression rule names (its name looked up once per type).
    private func isWatched(_ widget: GObjectPointer) -> Bool {
        let type = widget.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type
        if let known = typeWatched[type] { return known }
        let watched = typeNames.contains(GObjectValue.typeName(of: widget))
        typeWatched[type] = watched
        return watched
    }

    /// Whether `widget` shows only part of what it holds: a scrolled window or a scrollable.
    static func scrolls(_ widget: GObjectPointer) -> Bool {
        cgtk_is_a(widget, gtk_scrolled_window_get_type()) != 0 || cgtk_is_a(widget, gtk_scrollable_get_type()) != 0
    }

    static func rect(_ r: graphene_rect_t) -> ViewRect {
        ViewRect(x: Double(r.origin.x), y: Double(r.origin.y), width: Double(r.size.width), height: Double(r.size.height))
    }
}
