import CGtk

/// One process-wide emission hook: `body` sees every emission of a signal, from any instance,
/// before the instance's handlers run. Installed and removed on the GTK thread.
final class GtkSignalHook {
    typealias Body = (_ parameters: UnsafePointer<GValue>, _ count: Int) -> Void

    let signalID: guint
    private var hookID: gulong = 0
    private let body: Body

    /// Looks the signal up on `type` (whose class is referenced first, as lookup needs) and hooks
    /// it, optionally only for `detail` (`notify::selected`). Nil when `type` has no such signal.
    init?(_ name: String, on type: GType, detail: String? = nil, _ body: @escaping Body) {
        _ = g_type_class_ref(type)
        let id = g_signal_lookup(name, type)
        guard id != 0 else { return nil }
        signalID = id
        self.body = body
        let quark = detail.map { g_quark_from_string($0) } ?? 0
        hookID = g_signal_add_emission_hook(
            id, quark,
            { _, count, parameters, data in
                guard let parameters, let data else { return 1 }
                Unmanaged<GtkSignalHook>.fromOpaque(data).takeUnretainedValue().body(parameters, Int(count))
                return 1  // stay installed
            }, Unmanaged.passRetained(self).toOpaque(),
            { data in
                guard let data else { return }
                Unmanaged<GtkSignalHook>.fromOpaque(data).release()
            })
    }

    /// Removes the hook; GLib then releases it.
    func remove() {
        guard hookID != 0 else { return }
        g_signal_remove_emission_hook(signalID, hookID)
        hookID = 0
    }
}

/// Reading signal parameters.
extension UnsafePointer<GValue> {
    /// The instance or object pointer at `index` (0 is the emitting instance).
    func pointer(_ index: Int) -> GObjectPointer? { cgtk_value_pointer(self + index) }
    func bool(_ index: Int) -> Bool { g_value_get_boolean(self + index) != 0 }
    func uint(_ index: Int) -> UInt32 { g_value_get_uint(self + index) }
}
