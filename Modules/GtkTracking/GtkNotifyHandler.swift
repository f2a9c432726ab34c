import CGtk

/// A `notify::<property>` handler on one object, connected once per object and property.
final class GtkNotifyHandler {
    private let body: (GObjectPointer) -> Void

    private init(_ body: @escaping (GObjectPointer) -> Void) { self.body = body }

    /// Connects `body` to `object`'s `notify::property` unless this was done before.
    static func connect<Value>(_ object: GObjectPointer, _ property: GObjectProperty<Value>, _ body: @escaping (GObjectPointer) -> Void) {
        let gobject = object.assumingMemoryBound(to: GObject.self)
        let marker = g_quark_from_string("autotrack-notify-" + property.name)
        guard g_object_get_qdata(gobject, marker) == nil else { return }
        g_object_set_qdata(gobject, marker, UnsafeMutableRawPointer(bitPattern: 1))
        let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = {
            object, _, data in
            guard let object, let data else { return }
            Unmanaged<GtkNotifyHandler>.fromOpaque(data).takeUnretainedValue().body(object)
        }
        g_signal_connect_data(
            object, "notify::" + property.name, unsafeBitCast(handler, to: GCallback.self),
            Unmanaged.passRetained(GtkNotifyHandler(body)).toOpaque(),
            { data, _ in
                guard let data else { return }
                Unmanaged<GtkNotifyHandler>.fromOpaque(data).release()
            }, GConnectFlags(rawValue: 0))
    }
}
