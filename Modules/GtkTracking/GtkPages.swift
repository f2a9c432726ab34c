import CGtk
import Interactions
import ViewIdentity

/// Which pages are shown, and how long: `page_enter` / `page_leave` with dwell (docs/gtk.md "Pages").
///
/// A page is the visible child of a `GtkStack` (notebook pages included) in a mapped window; a
/// window that holds no page is its own page. Pages are entered when their window is mapped or
/// their stack shows them, and left when their stack shows another child or their window is
/// unmapped; a page inside a page comes and goes with it.
final class GtkPages {
    private struct Place {
        /// Referenced while the visit lasts, so the leave event can still name it.
        let page: GObjectPointer
        let window: GObjectPointer
        /// The stack that shows it; nil for a window that is its own page.
        let stack: GObjectPointer?
    }

    private var pages = ShownPages<Place>()
    private let clock: any InteractionClock
    private let report: (Interaction) -> Void
    /// Called with each page entered (the tree writer).
    var onEnter: ((GtkWidgetNode) -> Void)?

    init(clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.report = report
    }

    deinit {
        for v in pages.visits { g_object_unref(v.place.page) }
    }

    /// A window was mapped: enter the pages it shows, or the window itself.
    func windowMapped(_ window: GObjectPointer) {
        guard !pages.visits.contains(where: { $0.place.window == window }) else { return }
        let entered = enterPages(inside: window, window: window)
        if entered == 0 { enter(window, window: window, stack: nil) }
    }

    /// A window was unmapped: leave everything it showed, innermost first.
    func windowUnmapped(_ window: GObjectPointer) {
        leave { $0.window == window }
    }

    /// A stack shows another child (or its first).
    func stackChanged(_ stack: GObjectPointer) {
        guard GtkWidgetNode.isPageStack(stack) else { return }
        let widget = stack.assumingMemoryBound(to: GtkWidget.self)
        guard let root = gtk_widget_get_root(widget) else { return }
        let window = UnsafeMutableRawPointer(root)
        if cgtk_is_window(window) != 0 { GtkWidgetNode.node(for: window).cachedHoldsPage = nil }
        guard gtk_widget_get_mapped(widget) != 0, pages.visits.contains(where: { $0.place.window == window }) else { return }
        // The pages this stack showed, and whatever was inside them; a window that was its own page.
        let shown = pages.visits.filter { $0.place.stack == stack }.map(\.place.page)
        leave { v in
            v.stack == stack || (v.stack == nil && v.page == window)
                || GtkWidgetNode.selfAndAncestors(of: v.page).dropFirst().contains { shown.contains($0) }
        }
        if let child = gtk_stack_get_visible_child(OpaquePointer(stack)) {
            let page = UnsafeMutableRawPointer(child)
            enter(page, window: window, stack: stack)
            enterPages(inside: page, window: window)
        }
        if !pages.visits.contains(where: { $0.place.window == window }) { enter(window, window: window, stack: nil) }
    }

    /// The pages shown now, outermost first, and the windows they are shown in.
    var shown: (pages: [GObjectPointer], windows: [GObjectPointer]) {
        var windows: [GObjectPointer] = []
        for v in pages.visits where !windows.contains(v.place.window) { windows.append(v.place.window) }
        return (pages.visits.map(\.place.page), windows)
    }

    /// Leaves every page (the process is ending).
    func leaveAll() { leave { _ in true } }

    /// The page shown beneath what lies outside the pages of `window` (docs/gtk.md "Header bars and
    /// dialogs"): the first page its stacks show, else the window itself when it is its own page;
    /// for a dialog (a window transient for another), the page its parent shows. Nil when none is shown.
    func presentingPage(of window: GObjectPointer) -> String? {
        var w = window
        // Bounded: a chain of dialogs is short, and a cycle GTK would refuse.
        for _ in 0..<8 {
            guard let parent = gtk_window_get_transient_for(w.assumingMemoryBound(to: GtkWindow.self)),
                pages.visits.contains(where: { $0.place.window == UnsafeMutableRawPointer(parent) })
            else { break }
            w = UnsafeMutableRawPointer(parent)
        }
        let inWindow = pages.visits.filter { $0.place.window == w }
        return (inWindow.first { $0.place.stack != nil } ?? inWindow.first)?.name
    }

    /// Enters the visible child of every stack inside `root` (not through hidden stack children).
    @discardableResult
    private func enterPages(inside root: GObjectPointer, window: GObjectPointer) -> Int {
        var count = 0
        var pending: [GObjectPointer] = [root]
        while let w = pending.popLast() {
            let widget = w.assumingMemoryBound(to: GtkWidget.self)
            if w != root, GtkWidgetNode.isPageStack(w) {
                if let child = gtk_stack_get_visible_child(OpaquePointer(w)) {
                    enter(UnsafeMutableRawPointer(child), window: window, stack: w)
                    count += 1
                    pending.append(UnsafeMutableRawPointer(child))
                }
                continue
            }
            var children: [GObjectPointer] = []
            var child = gtk_widget_get_first_child(widget)
            while let c = child {
                children.append(UnsafeMutableRawPointer(c))
                child = gtk_widget_get_next_sibling(c)
            }
            pending.append(contentsOf: children.reversed())
        }
        return count
    }

    private func enter(_ page: GObjectPointer, window: GObjectPointer, stack: GObjectPointer?) {
        guard !pages.visits.contains(where: { $0.place.page == page }) else { return }
        let node = GtkWidgetNode.node(for: page)
        g_object_ref(page)
        report(pages.enter(Place(page: page, window: window, stack: stack), node: node, clock: clock))
        onEnter?(node)
    }

    /// Leaves the pages `matches` selects, innermost (last entered) first.
    private func leave(where matches: (Place) -> Bool) {
        let now = clock.monotonicNanoseconds()
        let left = pages.remove { matches($0.place) }
        for v in left.reversed() { report(pages.leaving(v, node: GtkWidgetNode.node(for: v.place.page), now: now, clock: clock)) }
        for v in left { g_object_unref(v.place.page) }
    }
}
