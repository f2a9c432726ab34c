import CGtk
import ViewIdentity

/// Event codes of GTK signals, `Page#Target#Action` (docs/viewpath.md §5).
enum GtkEventCodes {
    /// For a `GtkActionable` with action name `G.A`: Target `G`, Action `A`; otherwise Target is the
    /// sender's id where set, else its type name, and Action is the signal.
    /// `page` is the sender's `ViewPlacement.codeController`.
    static func code(sender: GtkWidgetNode, page: String, signal: String) -> EventCode {
        if let w = sender.widget, cgtk_is_actionable(w) != 0,
            let name = gtk_actionable_get_action_name(OpaquePointer(w))
        {
            let full = String(cString: name)
            if let dot = full.firstIndex(of: "."), dot != full.startIndex, full.index(after: dot) != full.endIndex {
                return EventCode(
                    controller: page, target: String(full[..<dot]), action: String(full[full.index(after: dot)...]))
            }
        }
        return EventCode(controller: page, target: sender.id ?? sender.typeName, action: signal)
    }
}
