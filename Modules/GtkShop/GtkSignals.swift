import CGtk

/// Connects Swift closures to GTK signals (the app's own handlers; nothing here tracks anything).
enum GtkSignals {
    private final class Box<T> {
        let body: T
        init(_ body: T) { self.body = body }
    }

    private static func connect<T>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback, _ body: T) {
        g_signal_connect_data(
            instance, signal, handler, Unmanaged.passRetained(Box(body)).toOpaque(),
            { data, _ in
                guard let data else { return }
                Unmanaged<AnyObject>.fromOpaque(data).release()
            }, GConnectFlags(rawValue: 0))
    }

    /// A signal with no arguments (`clicked`, `value-changed`, `close-request`).
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping () -> Void) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
            guard let data else { return }
            Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().body()
        }
        connect(instance, signal, unsafeBitCast(handler, to: GCallback.self), body)
    }

    /// A signal with one pointer argument (`row-activated`'s row, `notify`'s property).
    static func connect(
        _ instance: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping (UnsafeMutableRawPointer?) -> Void
    ) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
            _, argument, data in
            guard let data else { return }
            Unmanaged<Box<(UnsafeMutableRawPointer?) -> Void>>.fromOpaque(data).takeUnretainedValue().body(argument)
        }
        connect(instance, signal, unsafeBitCast(handler, to: GCallback.self), body)
    }

    /// A click gesture's `released (n_press, x, y)`.
    static func connectReleased(_ gesture: UnsafeMutableRawPointer, _ body: @escaping () -> Void) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, Int32, Double, Double, UnsafeMutableRawPointer?) -> Void = {
            _, _, _, _, data in
            guard let data else { return }
            Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().body()
        }
        connect(gesture, "released", unsafeBitCast(handler, to: GCallback.self), body)
    }

    /// A key controller's `key-pressed (keyval, keycode, state)`; `body` answers whether it handled the key.
    static func connectKeyPressed(_ controller: UnsafeMutableRawPointer, _ body: @escaping (UInt32, UInt32) -> Bool) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UInt32, UInt32, UInt32, UnsafeMutableRawPointer?) -> gboolean = {
            _, keyval, _, state, data in
            guard let data else { return 0 }
            return Unmanaged<Box<(UInt32, UInt32) -> Bool>>.fromOpaque(data).takeUnretainedValue().body(keyval, state) ? 1 : 0
        }
        connect(controller, "key-pressed", unsafeBitCast(handler, to: GCallback.self), body)
    }

    /// A `close-request`, answered FALSE so the window closes.
    static func connectCloseRequest(_ window: UnsafeMutableRawPointer, _ body: @escaping () -> Void) {
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, data in
            if let data { Unmanaged<Box<() -> Void>>.fromOpaque(data).takeUnretainedValue().body() }
            return 0
        }
        connect(window, "close-request", unsafeBitCast(handler, to: GCallback.self), body)
    }
}

/// Widget pointers as the GTK functions want them.
extension UnsafeMutablePointer<GtkWidget> {
    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(self) }
    var opaque: OpaquePointer { OpaquePointer(self) }
    func `as`<T>(_: T.Type) -> UnsafeMutablePointer<T> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: T.self) }
}
