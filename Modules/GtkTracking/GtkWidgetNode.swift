import CGtk
import EventModel
public import KVCConfig
import Synchronization
public import ViewIdentity

/// A live GTK widget as a view-tree node, by the rules of docs/viewpath.md §5 (docs/gtk.md).
///
/// One node per widget, kept on the widget (GObject data) so that a sibling found through the
/// parent is the same object (`===`), as path computation requires. The node does not keep the
/// widget alive: when the widget is finalized its node becomes detached (`widget == nil`) and
/// answers as an empty, parentless view. Use nodes on the GTK thread only: so the widget and the
/// caches below are never in overlapping accesses, and go without dynamic exclusivity checks
/// (each path element reads several of them, on every hooked click).
public final class GtkWidgetNode: ViewNode, KeyValueReadable {
    /// The widget, nil once it was finalized.
    @exclusivity(unchecked) public private(set) var widget: GObjectPointer?
    public let typeName: String
    /// The type name (there is no module prefix in GType names), computed once.
    let baseName: String

    private init(_ widget: GObjectPointer) {
        self.widget = widget
        typeName = GObjectValue.typeName(of: widget)
        baseName = typeName
    }

    /// The node of `widget`, created on first use and kept on the widget until it is finalized.
    public static func node(for widget: GObjectPointer) -> GtkWidgetNode {
        if let data = g_object_get_qdata(widget.assumingMemoryBound(to: GObject.self), quark) {
            return Unmanaged<GtkWidgetNode>.fromOpaque(data).takeUnretainedValue()
        }
        let node = GtkWidgetNode(widget)
        g_object_set_qdata_full(
            widget.assumingMemoryBound(to: GObject.self), quark, Unmanaged.passRetained(node).toOpaque()
        ) { data in
            guard let data else { return }
            let node = Unmanaged<GtkWidgetNode>.fromOpaque(data).takeRetainedValue()
            node.widget = nil
        }
        return node
    }

    private static let quark: GQuark = g_quark_from_static_string("autotrack-view-node")

    // MARK: ViewNode

    public var role: ViewRole {
        guard let widget else { return .view }
        let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)).map { UnsafeMutableRawPointer($0) }
        if parent != placedUnder || placement == nil {
            placedUnder = parent
            placement = GtkWidgetNode.placement(of: widget)
        }
        switch placement! {
        case .page: return .controller
        case .row: return .cell
        case .listRow: return GtkListItems.position(ofRow: widget) != nil ? .cell : .view
        case .window: return windowHoldsPage(widget) ? .window : .controller
        case .plain: return .view
        }
    }

    /// What a widget is by its own type and its parent's: what `role` depends on besides a list
    /// row's known position and a window's pages. Kept until the widget gets another parent.
    private enum Placement { case page, row, listRow, window, plain }
    @exclusivity(unchecked) private var placement: Placement?
    @exclusivity(unchecked) private var placedUnder: GObjectPointer?

    private static func placement(of widget: GObjectPointer) -> Placement {
        if isPage(widget) { return .page }
        if cgtk_is_list_box_row(widget) != 0 { return .row }
        if GtkListItems.isRow(widget) { return .listRow }
        if cgtk_is_window(widget) != 0 { return .window }
        return .plain
    }

    /// For a window: whether it holds a page, computed once and forgotten when a stack of the
    /// window changes its visible child (which it does when it gets its first child).
    @exclusivity(unchecked) var cachedHoldsPage: Bool?

    private func windowHoldsPage(_ widget: GObjectPointer) -> Bool {
        if let cachedHoldsPage { return cachedHoldsPage }
        let holds = GtkWidgetNode.holdsPage(widget)
        cachedHoldsPage = holds
        return holds
    }

    public var parentNode: (any ViewNode)? {
        guard let widget, let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)) else {
            return nil
        }
        return GtkWidgetNode.node(for: parent)
    }

    /// `widget`, then each ancestor up to the top of its tree: the one walk up (`ViewAncestors`),
    /// as widgets.
    static func selfAndAncestors(of widget: GObjectPointer) -> some Sequence<GObjectPointer> {
        node(for: widget).selfAndAncestors.lazy.compactMap { ($0 as? GtkWidgetNode)?.widget }
    }

    public var childNodes: [any ViewNode] {
        guard let widget else { return [] }
        var out: [any ViewNode] = []
        var child = gtk_widget_get_first_child(widget.assumingMemoryBound(to: GtkWidget.self))
        // Bounded by the number of children GTK holds.
        while let c = child {
            out.append(GtkWidgetNode.node(for: c))
            child = gtk_widget_get_next_sibling(c)
        }
        return out
    }

    public var cellIndexPath: CellIndexPath? {
        guard let widget else { return nil }
        if cgtk_is_list_box_row(widget) != 0 {
            let i = gtk_list_box_row_get_index(widget.assumingMemoryBound(to: GtkListBoxRow.self))
            return i >= 0 ? CellIndexPath(section: 0, row: Int(i)) : nil
        }
        return GtkListItems.position(ofRow: widget).map { CellIndexPath(section: 0, row: $0) }
    }

    public var pageAlias: String? {
        guard let widget, let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)) else {
            return nil
        }
        // Read once per parent, as the page name below (a stack page keeps its name).
        if let cachedAlias, cachedAliasParent == UnsafeMutableRawPointer(parent) { return cachedAlias }
        var alias: String?
        if cgtk_is_stack(parent) != 0,
            let page = gtk_stack_get_page(OpaquePointer(parent), widget.assumingMemoryBound(to: GtkWidget.self)),
            let name = gtk_stack_page_get_name(page)
        {
            let text = String(cString: name)
            if GtkWidgetNode.isAlias(text) { alias = text }
        }
        cachedAlias = .some(alias)
        cachedAliasParent = UnsafeMutableRawPointer(parent)
        return alias
    }

    @exclusivity(unchecked) private var cachedAlias: String??
    @exclusivity(unchecked) private var cachedAliasParent: GObjectPointer?

    public var pathName: String {
        guard role == .controller else { return baseName }
        // A page's name is computed once per parent (a stack page keeps its name).
        if let cachedPageName, placedUnder == cachedPageParent { return cachedPageName }
        let name = pageAlias.map { baseName + "(" + $0 + ")" } ?? baseName
        cachedPageName = name
        cachedPageParent = placedUnder
        return name
    }

    @exclusivity(unchecked) private var cachedPageName: String?
    @exclusivity(unchecked) private var cachedPageParent: GObjectPointer?

    /// Rule 4 without a node per sibling: a widget that is not a page (paths ask only those) has
    /// the path name of its type (only pages carry an alias, and a page's siblings are pages), so
    /// its same-named earlier siblings are the earlier siblings of its GType, counted through GTK's
    /// sibling links.
    public func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int {
        guard let widget, sameBytes(name, baseName) else { return ViewPath.sameNameSiblingsBefore(self, name: name, parent: parent) }
        let type = cgtk_type_of(widget)
        var count = 0
        var sibling = gtk_widget_get_prev_sibling(widget.assumingMemoryBound(to: GtkWidget.self))
        // Bounded by the number of children GTK holds.
        while let s = sibling {
            if cgtk_type_of(s) == type { count += 1 }
            sibling = gtk_widget_get_prev_sibling(s)
        }
        return count
    }

    /// The visible label: the widget's `label` property where it has one.
    public var title: String? {
        guard let widget else { return nil }
        return GObjectProperty.label.read(widget)
    }

    /// The node's builder id, or its widget name where one was set (docs/gtk.md "Ids").
    public var id: String? {
        guard let widget else { return nil }
        // GtkBuilder names a template's root by its class and objects without an id
        // `___object_N___`: neither is an id the app gave.
        if cgtk_is_buildable(widget) != 0, let b = gtk_buildable_get_buildable_id(OpaquePointer(widget)) {
            let id = String(cString: b)
            if !id.isEmpty, id != typeName, !id.hasPrefix("___object_") { return id }
        }
        guard let n = gtk_widget_get_name(widget.assumingMemoryBound(to: GtkWidget.self)) else { return nil }
        let name = String(cString: n)
        return name.isEmpty || name == typeName ? nil : name
    }

    // MARK: KeyValueReadable

    /// A GObject property of the widget (`label`, `active`, `value`, `selected`, `parent`…); on the
    /// row widget of a list, grid or column view also `item`, the row's model object.
    public func value(forKey key: String) -> Any? {
        guard let widget else { return nil }
        if let v = AnyGObjectProperty(key).read(widget) { return v }
        if key == "item", let item = GtkListItems.listItem(ofRow: widget) {
            return AnyGObjectProperty(key).read(item)
        }
        return nil
    }

    // MARK: Rules of §5

    /// A page: the child of a `GtkStack` page (a notebook's pages are the children of its stack).
    static func isPage(_ widget: GObjectPointer) -> Bool {
        guard let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)) else { return false }
        return isPageStack(UnsafeMutableRawPointer(parent))
    }

    /// GTK's own controls whose inner stacks show parts of the control, not pages of the app.
    private static let controlTypes: [GType] = [
        gtk_drop_down_get_type(), gtk_popover_get_type(), gtk_menu_button_get_type(), gtk_combo_box_get_type(),
        gtk_file_chooser_widget_get_type(), gtk_color_chooser_widget_get_type(), gtk_font_chooser_widget_get_type(),
    ]

    /// A `GtkStack` whose children are pages: any stack but those inside GTK's own controls
    /// (a drop-down's button, a menu, a popover, a chooser) (docs/gtk.md "Pages").
    static func isPageStack(_ widget: GObjectPointer) -> Bool {
        guard cgtk_is_stack(widget) != 0 else { return false }
        return !selfAndAncestors(of: widget).dropFirst().contains { w in controlTypes.contains { cgtk_is_a(w, $0) != 0 } }
    }

    /// A window holds a page when a stack with at least one child is among its descendants.
    static func holdsPage(_ window: GObjectPointer) -> Bool {
        var found = false
        GtkWidgetNode.walk(window) { w in
            if isPageStack(w), gtk_widget_get_first_child(w.assumingMemoryBound(to: GtkWidget.self)) != nil {
                found = true
            }
            return !found
        }
        return found
    }

    /// Visits `root` and its descendants depth first while `visit` returns true.
    static func walk(_ root: GObjectPointer, _ visit: (GObjectPointer) -> Bool) {
        var stack: [GObjectPointer] = [root]
        while let w = stack.popLast() {
            guard visit(w) else { return }
            var children: [GObjectPointer] = []
            var child = gtk_widget_get_first_child(w.assumingMemoryBound(to: GtkWidget.self))
            while let c = child {
                children.append(UnsafeMutableRawPointer(c))
                child = gtk_widget_get_next_sibling(c)
            }
            stack.append(contentsOf: children.reversed())
        }
    }

    /// `[A-Za-z0-9_]+`.
    static func isAlias(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F
        }
    }
}
