import CGtk
import ViewIdentity

/// Event codes of GTK signals, `Page#Target#Action` (docs/viewpath.md §5).
enum GtkEventCodes {
    /// For a `GtkActionable` with action name `G.A`: Target `G`, Action `A`; otherwise Target is the
    /// sender's id where set, else its type name, and Action is the signal.
    /// `page` is the sender's `ViewPlacement.codeController`.
    static func code(sender: GtkWidgetNode, page: String, signal: String) -> EventCode {
        if let w = sender.widget, let code = actionCode(w) {
            return EventCode(controller: page, target: code.target, action: code.action)
        }
        return EventCode(controller: page, target: sender.id ?? sender.typeName, action: signal)
    }
}

extension GtkEventCodes {
    /// The Target and the Actions of the event codes `node`'s widget can send, as the hooks would
    /// name them (docs/gtk.md "Trees"): what `autotrack-agent check --tree-dir` compares an event
    /// table with. Nil when it sends none (a detached node, a box, a label without gestures).
    static func sendable(_ node: GtkWidgetNode) -> (target: String, actions: [String])? {
        guard let w = node.widget else { return nil }
        if let code = actionCode(w) { return (code.target, [code.action]) }
        var actions: [String] = []
        if cgtk_is_toggle_button(w) != 0 || cgtk_is_check_button(w) != 0 {
            if !GtkHookSystem.isPartOfControl(w) { actions.append("toggled") }
        } else if cgtk_is_button(w) != 0, !GtkHookSystem.isPartOfControl(w) {
            actions.append("clicked")
        }
        if cgtk_is_switch(w) != 0 { actions.append("state-set") }
        if cgtk_is_range(w) != 0 || cgtk_is_spin_button(w) != 0 || cgtk_is_scrolled_window(w) != 0 { actions.append("value-changed") }
        if cgtk_is_drop_down(w) != 0 { actions.append("notify::selected") }
        if cgtk_is_list_box(w) != 0 { actions.append("row-activated") }
        if cgtk_is_list_view(w) != 0 || cgtk_is_grid_view(w) != 0 || cgtk_is_column_view(w) != 0 { actions.append("activate") }
        actions += gestureActions(w)
        return actions.isEmpty ? nil : (node.id ?? node.typeName, actions)
    }

    /// `G.A` of a `GtkActionable` with an action name: Target `G`, Action `A`.
    private static func actionCode(_ w: GObjectPointer) -> (target: String, action: String)? {
        guard cgtk_is_actionable(w) != 0, let name = gtk_actionable_get_action_name(OpaquePointer(w)) else { return nil }
        let full = String(cString: name)
        guard let dot = full.firstIndex(of: "."), dot != full.startIndex, full.index(after: dot) != full.endIndex else { return nil }
        return (String(full[..<dot]), String(full[full.index(after: dot)...]))
    }

    /// The Actions of the gestures attached to `w` that the hooks report (not GTK's machinery's).
    private static func gestureActions(_ w: GObjectPointer) -> [String] {
        guard let model = gtk_widget_observe_controllers(w.assumingMemoryBound(to: GtkWidget.self)) else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(model)) }
        var actions: [String] = []
        for i in 0..<g_list_model_get_n_items(model) {
            guard let controller = g_list_model_get_item(model, i) else { continue }
            defer { g_object_unref(controller) }
            let action: String?
            if cgtk_is_a(controller, gtk_gesture_click_get_type()) != 0 {
                action = GtkHookSystem.ownsGestures(w) || cgtk_is_switch(w) != 0 ? nil : "released"
            } else if GtkHookSystem.ownsMotionGestures(w) {
                action = nil
            } else if cgtk_is_a(controller, gtk_gesture_long_press_get_type()) != 0 {
                action = "pressed"
            } else if cgtk_is_a(controller, gtk_gesture_swipe_get_type()) != 0 {
                action = "swipe"
            } else if cgtk_is_a(controller, gtk_gesture_drag_get_type()) != 0 {
                action = "drag-end"
            } else {
                action = nil
            }
            if let action, !actions.contains(action) { actions.append(action) }
        }
        return actions
    }
}
