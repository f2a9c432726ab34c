import CGtk

/// Calls `body` when the default main context starts an iteration, before anything is dispatched.
///
/// A GLib source whose `prepare` runs first (the highest priority there is) and never dispatches.
final class GtkMainLoopIterations {
    private var source: UnsafeMutablePointer<GSource>?
    private let funcs: UnsafeMutablePointer<GSourceFuncs>
    fileprivate let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        funcs = .allocate(capacity: 1)
        funcs.initialize(
            to: GSourceFuncs(
                prepare: { source, timeout in
                    timeout?.pointee = -1
                    if let source {
                        let slot = UnsafeMutableRawPointer(source).advanced(by: MemoryLayout<GSource>.stride)
                        if let owner = slot.load(as: UnsafeMutableRawPointer?.self) {
                            Unmanaged<GtkMainLoopIterations>.fromOpaque(owner).takeUnretainedValue().body()
                        }
                    }
                    return 0
                },
                check: { _ in 0 }, dispatch: { _, _, _ in 1 }, finalize: nil, closure_callback: nil,
                closure_marshal: nil))
        let size = MemoryLayout<GSource>.stride + MemoryLayout<UnsafeMutableRawPointer?>.stride
        let s = g_source_new(funcs, guint(size))!
        UnsafeMutableRawPointer(s).advanced(by: MemoryLayout<GSource>.stride)
            .storeBytes(of: Unmanaged.passUnretained(self).toOpaque() as UnsafeMutableRawPointer?, as: UnsafeMutableRawPointer?.self)
        g_source_set_priority(s, gint(Int32.min / 2))
        g_source_attach(s, nil)
        source = s
    }

    /// Detaches the source; `body` is not called again.
    func stop() {
        guard let source else { return }
        UnsafeMutableRawPointer(source).advanced(by: MemoryLayout<GSource>.stride)
            .storeBytes(of: nil as UnsafeMutableRawPointer?, as: UnsafeMutableRawPointer?.self)
        g_source_destroy(source)
        g_source_unref(source)
        self.source = nil
    }
}
