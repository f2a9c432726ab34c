import Foundation
import ProgramLaunch

/// `run` for GNUstep programs (docs/objc.md): the Objective-C preload library, with the
/// toolchain's blocks runtime before it.
extension RunCommand {
    /// `LD_PRELOAD`'s entries for a GNUstep program: Swift's blocks runtime first (so Dispatch's
    /// blocks and GNUstep base share one `_Block_*` implementation), then the preload library
    /// (`$AUTOTRACK_OBJC_PRELOAD_LIBRARY`, or beside this executable, or in `../lib`); nil with
    /// the reason when one is missing.
    static func gnustepPreload() -> Result<[String], RunSetupFailure> {
        let fm = FileManager.default
        var library: String?
        if let given = ProcessInfo.processInfo.environment["AUTOTRACK_OBJC_PRELOAD_LIBRARY"], fm.fileExists(atPath: given) {
            library = given
        } else {
            let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            for candidate in [GNUstepProgram.preloadLibraryName, "../lib/" + GNUstepProgram.preloadLibraryName] {
                let path = me.appendingPathComponent(candidate).standardizedFileURL.path
                if fm.fileExists(atPath: path) {
                    library = path
                    break
                }
            }
        }
        guard let library else {
            return .failure(
                RunSetupFailure(
                    "the preload library \(GNUstepProgram.preloadLibraryName) is not beside autotrack-agent; build it with "
                        + "'swift build --product AutotrackObjCPreload' or set AUTOTRACK_OBJC_PRELOAD_LIBRARY"))
        }
        guard let blocks = blocksRuntimePath() else {
            return .failure(RunSetupFailure("cannot find the Swift toolchain's \(GNUstepProgram.blocksRuntimeName) (this agent loads it)"))
        }
        return .success([blocks, library])
    }

    /// The blocks runtime this agent itself runs with, from its memory map.
    static func blocksRuntimePath() -> String? {
        // A /proc file reports no size: read it to its end.
        guard let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() else { return nil }
        let maps = String(decoding: data, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let path = String(line[slash...])
            if path.hasSuffix("/" + GNUstepProgram.blocksRuntimeName) { return path }
        }
        return nil
    }
}

/// Why `run` cannot set a program up for tracking.
struct RunSetupFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
