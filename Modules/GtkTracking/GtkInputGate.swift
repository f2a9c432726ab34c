import CGtk

/// Tells what the user did from what code did: a control's signal counts only while GTK handles a
/// real input event aimed at that control (docs/gtk.md "Only what the user did").
///
/// Every input event reaches GTK through its surface's `event` signal; an emission hook records
/// it there. The record lasts until the main loop starts its next iteration (`endIteration`).
/// A signal then counts when the emitting widget is the event's target or one of its ancestors:
/// the widget under the pointer for pointer, touch and scroll events, the focus widget for keys.
/// So a switch flipped by code in a button's handler, the other radio button of a group, or a
/// spin button reset by code when a list row opens are not reported, and nothing is reported
/// before the first input.
final class GtkInputGate {
    private enum Kind { case pointer, key, drag }

    private var event: OpaquePointer?
    private var kind = Kind.pointer
    /// The event's target, found on first use (`nil` inside: looked for, none).
    private var foundTarget: GObjectPointer??

    /// How many input events were recorded since the hooks were installed.
    private(set) var inputs = 0
    /// The number (`inputs`) of the last press (button or touch): where the current click began.
    private(set) var lastPress = 0

    deinit { clear() }

    /// Records an event GDK is about to deliver (the surface's `event` emission).
    func record(_ event: OpaquePointer) {
        let kind: Kind
        switch gdk_event_get_event_type(event) {
        case GDK_BUTTON_PRESS, GDK_BUTTON_RELEASE, GDK_SCROLL, GDK_TOUCH_BEGIN, GDK_TOUCH_UPDATE, GDK_TOUCH_END,
            GDK_TOUCHPAD_SWIPE, GDK_TOUCHPAD_PINCH, GDK_TOUCHPAD_HOLD:
            kind = .pointer
        case GDK_KEY_PRESS, GDK_KEY_RELEASE:
            kind = .key
        case GDK_MOTION_NOTIFY:
            let buttons = GDK_BUTTON1_MASK.rawValue | GDK_BUTTON2_MASK.rawValue | GDK_BUTTON3_MASK.rawValue
            guard gdk_event_get_modifier_state(event).rawValue & buttons != 0 else { return }
            kind = .drag
        default:
            return
        }
        clear()
        self.event = gdk_event_ref(event)
        self.kind = kind
        foundTarget = nil
        inputs += 1
        let type = gdk_event_get_event_type(event)
        if type == GDK_BUTTON_PRESS || type == GDK_TOUCH_BEGIN { lastPress = inputs }
    }

    /// The main loop starts a new iteration: the event was handled.
    func endIteration() { clear() }

    /// Whether an input event is being handled now.
    var isHandlingInput: Bool { event != nil || simulatedTarget != nil }

    /// Benchmarks only: signals count as if a pointer event aimed at this widget were being handled.
    var simulatedTarget: GObjectPointer?

    /// True when `widget`'s signal is the user's doing: an input event is being handled and it is
    /// aimed at `widget` or inside it. A drag (motion with a button held) counts for any widget,
    /// since GTK delivers it to the widget that took the press wherever the pointer is.
    func allows(_ widget: GObjectPointer) -> Bool {
        let t: GObjectPointer
        if let simulatedTarget {
            t = simulatedTarget
        } else {
            guard event != nil else { return false }
            if kind == .drag { return true }
            guard let found = currentTarget() else { return false }
            t = found
        }
        let w = widget.assumingMemoryBound(to: GtkWidget.self)
        let tw = t.assumingMemoryBound(to: GtkWidget.self)
        // GTK's own test, not the ancestors walk over nodes: every control's signal asks it, the
        // code's as well as the user's, and it must make no node for the widgets it passes.
        return w == tw || gtk_widget_is_ancestor(tw, w) != 0
    }

    /// The widget the event being handled is aimed at, if any.
    var target: GObjectPointer? { event == nil ? nil : currentTarget() }

    private func currentTarget() -> GObjectPointer? {
        if let foundTarget { return foundTarget }
        let found = findTarget()
        foundTarget = .some(found)
        return found
    }

    private func findTarget() -> GObjectPointer? {
        guard let event, let surface = gdk_event_get_surface(event),
            let native = gtk_native_get_for_surface(surface)
        else { return nil }
        let nativeWidget = UnsafeMutableRawPointer(native).assumingMemoryBound(to: GtkWidget.self)
        if kind == .key {
            // Keys go to the focus widget of the window; a popover's keys to what it holds.
            if cgtk_is_root(UnsafeMutableRawPointer(native)) != 0, let focus = gtk_root_get_focus(native) { return UnsafeMutableRawPointer(focus) }
            return UnsafeMutableRawPointer(nativeWidget)
        }
        var x = 0.0, y = 0.0, dx = 0.0, dy = 0.0
        if gdk_event_get_position(event, &x, &y) == 0 || x.isNaN || y.isNaN {
            // X11 scroll events carry no position: GTK aims them at the pointer's place on the
            // surface. The logical pointer's, since a physical device has no position to ask.
            guard let seat = gdk_event_get_seat(event), let pointer = gdk_seat_get_pointer(seat),
                gdk_surface_get_device_position(surface, pointer, &x, &y, nil) != 0
            else { return nil }
        }
        gtk_native_get_surface_transform(native, &dx, &dy)
        guard let picked = gtk_widget_pick(nativeWidget, x - dx, y - dy, GTK_PICK_DEFAULT) else { return nil }
        return UnsafeMutableRawPointer(picked)
    }

    private func clear() {
        if let event { gdk_event_unref(event) }
        event = nil
        foundTarget = nil
    }
}
