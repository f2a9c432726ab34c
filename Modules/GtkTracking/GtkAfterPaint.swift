import CGtk

/// Runs work once a widget's window has been laid out and painted: trees and snapshots then hold
/// real positions and pixels (docs/gtk.md "Trees", "Snapshots").
enum GtkAfterPaint {
    /// Runs `body` after the next paint of `widget`'s window (at once when it has no frame clock),
    /// on the GTK thread. A paint is asked for, so it comes even when nothing else changes.
    static func run(_ widget: GObjectPointer, _ body: @escaping () -> Void) {
        let gtkWidget = widget.assumingMemoryBound(to: GtkWidget.self)
        guard let clock = gtk_widget_get_frame_clock(gtkWidget) else {
            body()
            return
        }
        let clockObject = UnsafeMutableRawPointer(clock)
        let pending = PendingPaint(clock: clockObject, body: body)
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<PendingPaint>.fromOpaque(data).takeUnretainedValue().fire()
        }
        pending.handlerID = g_signal_connect_data(
            clockObject, "after-paint", unsafeBitCast(handler, to: GCallback.self), Unmanaged.passRetained(pending).toOpaque(),
            { data, _ in
                guard let data else { return }
                Unmanaged<PendingPaint>.fromOpaque(data).release()
            }, GConnectFlags(rawValue: 0))
        gtk_widget_queue_draw(gtkWidget)
    }
}

/// Work waiting for a frame clock's next `after-paint`; runs once, then disconnects.
private final class PendingPaint {
    let clock: GObjectPointer
    let body: () -> Void
    var handlerID: gulong = 0

    init(clock: GObjectPointer, body: @escaping () -> Void) {
        self.clock = clock
        self.body = body
    }

    func fire() {
        let id = handlerID
        handlerID = 0
        guard id != 0 else { return }
        body()
        g_signal_handler_disconnect(clock, id)
    }
}
