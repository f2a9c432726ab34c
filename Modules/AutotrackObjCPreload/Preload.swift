import AgentPipeline
import AppKitTracking
import CAutotrackObjCPreload
import ObjCRuntime
import PreloadPipeline
import ProgramLaunch
import Synchronization
import SystemCalls
import Tracker

/// The GNUstep preload library's start: its C constructor calls this before the program's `main`.
///
/// Reads `LaunchSettings` from the environment, removes itself (and the blocks runtime put before
/// it) from `LD_PRELOAD` and from what `NSProcessInfo` hands to `NSTask`, so neither GNUstep's
/// daemons (`gdnc`, `gpbs`) nor any child is tracked; then, in a GNUstep GUI program, installs
/// the AppKit hooks with a tracker that ships to the collector (or writes NDJSON).
@_cdecl("autotrack_objc_preload_start")
public func autotrackObjCPreloadStart() {
    InjectedObjCTracking.start()
}

final class InjectedObjCTracking {
    let tracking: PreloadTracking
    let hooks: AppKitHookSystem
    /// Keeps the `-[NSProcessInfo environment]` hook for the life of the process.
    let environmentHook: MethodHook?

    private static let current = Mutex<InjectedObjCTracking?>(nil)
    static let exitFlushTimeout: Duration = .seconds(2)

    private init(tracking: PreloadTracking, hooks: AppKitHookSystem, environmentHook: MethodHook?) {
        self.tracking = tracking
        self.hooks = hooks
        self.environmentHook = environmentHook
    }

    static func start() {
        Posix.ignoreFileSizeLimitSignal()
        let env = Posix.environment()
        removeSelfFromPreload()
        let program = (try? Posix.readLink("/proc/self/exe")) ?? "/proc/self/exe"
        guard GNUstepProgram.isGNUstep(path: program) else { return }
        guard autotrack_objc_blocks_runtime_is_swifts() != 0 else {
            let found = String(cString: autotrack_objc_blocks_runtime_path())
            PreloadTracking.printError(
                "autotrack: _Block_copy resolves to \(found.isEmpty ? "no library" : found), not to Swift's \(GNUstepProgram.blocksRuntimeName): "
                    + "put \(GNUstepProgram.blocksRuntimeName) first in LD_PRELOAD (autotrack-agent run does); the program runs untracked")
            return
        }
        let settings = LaunchSettings(environment: env, program: program)
        do {
            try current.withLock { (slot: inout InjectedObjCTracking?) throws(PreloadFailure) in
                slot = try InjectedObjCTracking(settings: settings, environment: env)
            }
            atexit { InjectedObjCTracking.finish() }
            watchEndingSignals()
        } catch {
            PreloadTracking.printError("autotrack: \(error); the program runs untracked")
        }
    }

    private convenience init(settings: LaunchSettings, environment: [String: String]) throws(PreloadFailure) {
        let tracking = try PreloadTracking(
            settings: settings, environment: environment, agent: "autotrack-objc-preload", label: "autotrack.objc-preload")
        let pipeline = tracking.pipeline
        // Pictures go on a connection of their own, only in circle mode (docs/objc.md "Pictures").
        let snapshots = tracking.snapshots
        let hooks = AppKitHookSystem(
            observer: pipeline.tracker, treeDirectory: settings.treeDirectory, snapshots: snapshots.map { sender in { sender.send($0) } })
        do {
            try hooks.start()
        } catch {
            throw PreloadFailure("cannot hook AppKit: \(error)")
        }
        // `run --snapshots`: circle mode from the start, whatever the collector says; else the
        // collector's answers say when someone circles the app in the studio.
        let forced = settings.snapshots && snapshots != nil
        if forced { hooks.setCircleMode(true) }
        if let refresher = pipeline.refresher, !forced {
            let setCircleMode = hooks.circleModeSetter
            refresher.onCircleModeChange { setCircleMode($0) }
        }
        self.init(tracking: tracking, hooks: hooks, environmentHook: Self.hideSelfFromTasks())
    }

    /// GNUstep's `NSProcessInfo` read the environment before this constructor ran, and `NSTask`
    /// starts children (the `gdnc` daemon too) with it: its answer leaves `LD_PRELOAD` out.
    private static func hideSelfFromTasks() -> MethodHook? {
        guard let processInfo = ObjCClass.named("NSProcessInfo") else { return nil }
        let key = "LD_PRELOAD"
        // The answer without LD_PRELOAD, made once and kept (advice runs in a pool of its own, so
        // an autoreleased copy would be gone before the caller got it).
        nonisolated(unsafe) var kept: ObjCObject?
        return try? MethodHook(cls: processInfo, selector: "environment", phases: [.after]) { _, call in
            guard let environment = call.objectResult else { return false }
            if kept == nil, let copy = (try? environment.send("mutableCopy")) ?? nil {
                try? copy.sendVoid("removeObjectForKey:", ObjCObject.string(key))
                kept = copy
            }
            if let kept { call.objectResult = kept }
            return false
        }
    }

    /// Drops this library and the blocks runtime before it from `LD_PRELOAD`.
    static func removeSelfFromPreload() {
        guard let value = Posix.environmentValue("LD_PRELOAD") else { return }
        let kept = value.split(whereSeparator: { $0 == ":" || $0 == " " }).filter {
            !$0.contains("libAutotrackObjCPreload") && !$0.hasSuffix(GNUstepProgram.blocksRuntimeName)
        }
        Posix.setEnvironmentValue("LD_PRELOAD", to: kept.isEmpty ? nil : kept.joined(separator: ":"))
    }

    static func finish() {
        guard let session = current.withLock({ $0.take() }) else { return }
        session.hooks.stop()
        session.tracking.finish(within: exitFlushTimeout)
    }

    /// The ending signals (PreloadEnding) finish the session as at exit, as the GTK preload does
    /// (docs/gtk.md "Ending"): the hooks stop on the main thread, or after
    /// `PreloadEnding.hooksStopWait` from the signal's thread (the run loop may be busy in the
    /// app's own code); the rest on the signal's thread.
    private static func watchEndingSignals() {
        PreloadEnding.watch {
            guard let session = current.withLock({ $0.take() }) else { return }
            // The hooks by address (they are the main thread's; the session stays alive here).
            let hooks = UInt(bitPattern: Unmanaged.passUnretained(session.hooks).toOpaque())
            let stop = ClaimedWork {
                guard let pointer = UnsafeRawPointer(bitPattern: hooks) else { return }
                Unmanaged<AppKitHookSystem>.fromOpaque(pointer).takeUnretainedValue().stop()
            }
            MainThread.async { stop.runIfUnclaimed() }
            stop.wait(within: PreloadEnding.hooksStopWait)
            session.tracking.finish(within: exitFlushTimeout)
        }
    }
}
