/// Whether a program is a GNUstep (AppKit) application, the other kind `autotrack-agent run`
/// can track (docs/objc.md).
public enum GNUstepProgram {
    /// The library every GNUstep GUI application links (its helper daemons `gdnc` and `gpbs`
    /// link only gnustep-base).
    public static let libraryPrefix = "libgnustep-gui.so"
    /// The preload library for GNUstep programs, found beside `autotrack-agent`.
    public static let preloadLibraryName = "libAutotrackObjCPreload.so"
    /// The blocks runtime of the Swift toolchain: it must come before GNUstep base in the process,
    /// whose `_Block_*` functions Dispatch's blocks cannot run with (docs/objc.md "Dispatch").
    public static let blocksRuntimeName = "libBlocksRuntime.so"

    /// True when the executable at `path` links gnustep-gui directly.
    public static func isGNUstep(path: String) -> Bool {
        guard let libraries = try? ELFLibraries.needed(path: path) else { return false }
        return libraries.contains { $0.hasPrefix(libraryPrefix) }
    }
}
