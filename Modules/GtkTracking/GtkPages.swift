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
    private struct Visit {
        /// Referenced while the visit lasts, so the leave event can still name it.
        let page: GObjectPointer
        let window: GObjectPointer
        /// The stack that shows it; nil for a window that is its own page.
        let stack: GObjectPointer?
        let name: String
        let enteredNanos: UInt64
    }

    private var visits: [Visit] = []
    private var counts: [String: Int] = [:]
    private let clock: any HookClock
    private let report: (Interaction) -> Void
    /// Called with each page entered (the tree writer).
    var onEnter: ((GtkWidgetNode) -> Void)?

    init(clock: any HookClock, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.report = report
    }

    deinit {
        for v in visits { g_object_unref(v.page) }
    }

    /// A window was mapped: enter the pages it shows, or the window itself.
    func windowMapped(_ window: GObjectPointer) {
        guard !visits.contains(where: { $0.window == window }) else { return }
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
        guard gtk_widget_get_mapped(widget) != 0, visits.contains(where: { $0.window == window }) else { return }
        // The pages this stack showed, and whatever was inside them; a window that was its own page.
        let shown = visits.filter { $0.stack == stack }.map(\.page)
        leave { v in
            v.stack == stack || (v.stack == nil && v.page == window)
                || GtkWidgetNode.selfAndAncestors(of: v.page).dropFirst().contains { shown.contains($0) }
        }
        if let child = gtk_stack_get_visible_child(OpaquePointer(stack)) {
            let page = UnsafeMutableRawPointer(child)
            enter(page, window: window, stack: stack)
            enterPages(inside: page, window: window)
        }
        if !visits.contains(where: { $0.window == window }) { enter(window, window: window, stack: nil) }
    }

    /// The pages shown now, outermost first, and the windows they are shown in.
    var shown: (pages: [GObjectPointer], windows: [GObjectPointer]) {
        var windows: [GObjectPointer] = []
        for v in visits where !windows.contains(v.window) { windows.append(v.window) }
        return (visits.map(\.page), windows)
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
                visits.contains(where: { $0.window == UnsafeMutableRawPointer(parent) })
            else { break }
            w = UnsafeMutableRawPointer(parent)
        }
        return (visits.first { $0.window == w && $0.stack != nil } ?? visits.first { $0.window == w })?.name
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
        guard !visits.contains(where: { $0.page == page }) else { return }
        let node = GtkWidgetNode.node(for: page)
        let name = node.pathName
        g_object_ref(page)
        visits.append(Visit(page: page, window: window, stack: stack, name: name, enteredNanos: clock.monotonicNanoseconds()))
        counts[name, default: 0] += 1
        report(
            Interaction(
                kind: .pageEnter, node: node, title: node.title, page: name, pageCount: counts[name],
                timestamp: clock.wallMilliseconds()))
        onEnter?(node)
    }

    private func leave(where matches: (Visit) -> Bool) {
        let now = clock.monotonicNanoseconds()
        let leaving = Set(visits.indices.filter { matches(visits[$0]) })
        guard !leaving.isEmpty else { return }
        for i in visits.indices.reversed() where leaving.contains(i) {
            let v = visits[i]
            let node = GtkWidgetNode.node(for: v.page)
            report(
                Interaction(
                    kind: .pageLeave, node: node, title: node.title,
                    duration: Int64((now &- v.enteredNanos) / 1_000_000), page: v.name, pageCount: counts[v.name],
                    timestamp: clock.wallMilliseconds()))
        }
        let left = visits.indices.filter { leaving.contains($0) }.map { visits[$0].page }
        visits = visits.indices.filter { !leaving.contains($0) }.map { visits[$0] }
        for page in left { g_object_unref(page) }
    }
}
