import CGtk

/// Positions of the row widgets of `GtkListView`, `GtkGridView` and `GtkColumnView`.
///
/// GTK keeps a row widget's `GtkListItem` private. Every list item announces its position
/// (`notify::position`) when it is bound to a row; the hooks then mark the item's child widget
/// with a weak reference to the item, and a row widget (the child's parent) reads its position
/// through it.
enum GtkListItems {
    private static let quark: GQuark = g_quark_from_static_string("autotrack-list-item")

    /// Marks `item`'s child widget as showing `item` (called on `notify::position` of a list item).
    static func remember(item: GObjectPointer) {
        guard let child = gtk_list_item_get_child(OpaquePointer(item)) else { return }
        let object = UnsafeMutableRawPointer(child).assumingMemoryBound(to: GObject.self)
        if let data = g_object_get_qdata(object, quark) {
            let ref = data.assumingMemoryBound(to: GWeakRef.self)
            if let current = g_weak_ref_get(ref) {
                g_object_unref(current)
                if current == item.assumingMemoryBound(to: GObject.self) { return }
            }
            g_weak_ref_set(ref, item)
            return
        }
        let ref = UnsafeMutablePointer<GWeakRef>.allocate(capacity: 1)
        ref.initialize(to: GWeakRef())
        g_weak_ref_init(ref, item)
        g_object_set_qdata_full(object, quark, ref) { data in
            guard let ref = data?.assumingMemoryBound(to: GWeakRef.self) else { return }
            g_weak_ref_clear(ref)
            ref.deallocate()
        }
    }

    /// The list item a row widget shows, when its parent is a list, grid or column view. Not retained:
    /// use it at once, on the GTK thread.
    static func listItem(ofRow row: GObjectPointer) -> GObjectPointer? {
        let widget = row.assumingMemoryBound(to: GtkWidget.self)
        guard isRow(row), let child = gtk_widget_get_first_child(widget),
            let data = g_object_get_qdata(UnsafeMutableRawPointer(child).assumingMemoryBound(to: GObject.self), quark),
            let item = g_weak_ref_get(data.assumingMemoryBound(to: GWeakRef.self))
        else { return nil }
        // The row widget owns the item, so it outlives this call.
        g_object_unref(item)
        return UnsafeMutableRawPointer(item)
    }

    private static let positionQuark: GQuark = g_quark_from_static_string("autotrack-row-position")

    /// A row widget's position in its list, nil for any other widget: its list item's where the
    /// item is known, else the position it had when it was last activated.
    static func position(ofRow row: GObjectPointer) -> Int? {
        if let item = listItem(ofRow: row) {
            let p = gtk_list_item_get_position(OpaquePointer(item))
            return p == UInt32.max ? nil : Int(p)
        }
        guard isRow(row), let stored = g_object_get_qdata(row.assumingMemoryBound(to: GObject.self), positionQuark) else {
            return nil
        }
        return Int(bitPattern: stored) - 1
    }

    /// Remembers the position a row widget was activated at (for rows whose list item is unknown).
    static func remember(row: GObjectPointer, position: Int) {
        g_object_set_qdata(row.assumingMemoryBound(to: GObject.self), positionQuark, UnsafeMutableRawPointer(bitPattern: position + 1))
    }

    /// Whether `widget` is a row widget: a child of a list or grid view.
    static func isRow(_ widget: GObjectPointer) -> Bool {
        guard let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)) else { return false }
        return cgtk_is_list_view(parent) != 0 || cgtk_is_grid_view(parent) != 0
    }

    /// The row widget that holds `widget` (itself included), if any.
    static func row(containing widget: GObjectPointer) -> GObjectPointer? {
        GtkWidgetNode.selfAndAncestors(of: widget).first { isRow($0) }
    }

    /// The row widget of `list` (a list, grid or column view) showing `position`, if one is built.
    static func row(of list: GObjectPointer, at position: Int) -> GObjectPointer? {
        var found: GObjectPointer?
        GtkWidgetNode.walk(list) { w in
            if found != nil { return false }
            if w != list, self.position(ofRow: w) == position { found = w }
            return true
        }
        return found
    }
}
