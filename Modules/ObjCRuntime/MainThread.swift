import CObjCRuntime

/// Work for the main thread (AppKit's), from any thread: it runs at the main run loop's next turn,
/// inside an autorelease pool (`performSelectorOnMainThread:withObject:waitUntilDone:`).
public enum MainThread {
    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    public static func async(_ body: @escaping @Sendable () -> Void) {
        atr_run_on_main_thread({ context in
            guard let context else { return }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        }, Unmanaged.passRetained(Work(body)).toOpaque())
    }

    /// Runs `body` once, `seconds` from now, on the main run loop (also while a menu or a
    /// scroller is tracked). Call on the main thread.
    public static func after(_ seconds: Double, _ body: @escaping @Sendable () -> Void) {
        atr_run_after(seconds, { context in
            guard let context else { return }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
        }, Unmanaged.passRetained(Work(body)).toOpaque())
    }
}

/// A picture of a window's content, as PNG bytes.
public struct WindowPicture: Sendable {
    public var png: [UInt8]
    public var width: Int
    public var height: Int
}

extension ObjCObject {
    /// The window's content view drawn now into a PNG (`cacheDisplayInRect:toBitmapImageRep:`),
    /// `blanked` (pixels, origin at the top left) painted over in grey; nil when drawing failed.
    public func windowPicture(blanking blanked: [ObjCRect]) -> WindowPicture? {
        var length = 0
        var size = atr_rect()
        let rects = blanked.map(\.raw)
        guard let bytes = rects.withUnsafeBufferPointer({ atr_window_png(pointer, $0.baseAddress, $0.count, &length, &size) }) else {
            return nil
        }
        defer { atr_free(bytes) }
        return WindowPicture(png: Array(UnsafeBufferPointer(start: bytes, count: length)), width: Int(size.width), height: Int(size.height))
    }
}
