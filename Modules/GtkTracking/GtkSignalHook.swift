import CGtk

/// One process-wide emission hook: `body` sees every emission of a signal, from any instance,
/// before the instance's handlers run. Installed and removed on the GTK thread.
final class GtkSignalHook {
    typealias Body = (GtkSignalParameters) -> Void

    let signalID: guint
    private var hookID: gulong = 0
    private let body: Body

    /// Hooks `signal` on each of its emitting types, `body` seeing each emission's arguments (an
    /// emission whose parameters do not decode is passed over). One hook per type that has it.
    static func install<Arguments>(_ signal: GtkSignal<Arguments>, _ body: @escaping (Arguments) -> Void) -> [GtkSignalHook] {
        signal.emitters.compactMap { type in
            GtkSignalHook(signal.name, on: type) { parameters in
                if let arguments = Arguments(parameters) { body(arguments) }
            }
        }
    }

    /// Looks the signal up on `type` (whose class is referenced first, as lookup needs) and hooks
    /// it. Nil when `type` has no such signal.
    private init?(_ name: String, on type: GType, _ body: @escaping Body) {
        _ = g_type_class_ref(type)
        let id = g_signal_lookup(name, type)
        guard id != 0 else { return nil }
        signalID = id
        self.body = body
        hookID = g_signal_add_emission_hook(
            id, 0,
            { _, count, parameters, data in
                guard let parameters, let data else { return 1 }
                Unmanaged<GtkSignalHook>.fromOpaque(data).takeUnretainedValue()
                    .body(GtkSignalParameters(values: parameters, count: Int(count)))
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
