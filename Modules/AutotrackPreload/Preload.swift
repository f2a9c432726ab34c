import AgentPipeline
import CAutotrackPreload
import CGtk
import GtkTracking
import KVCConfig
import PreloadPipeline
import ProgramLaunch
import Synchronization
import SystemCalls
import Tracker

/// The preload library's start: its C constructor calls this before the program's `main`.
///
/// Reads `LaunchSettings` from the environment, removes itself from `LD_PRELOAD` (so the
/// program's children run untouched), and, when the program is a GTK 4 application, installs the
/// GTK hooks with a tracker that ships to the collector (or writes NDJSON), flushing at exit.
@_cdecl("autotrack_preload_start")
public func autotrackPreloadStart() {
    InjectedTracking.start()
}

/// What the preload runs in a tracked program: the tracking pipeline (tracker, reporting,
/// consent gate, shipper; PreloadPipeline's, as every preload's) and the GTK hooks.
final class InjectedTracking {
    let tracking: PreloadTracking
    let hooks: GtkHookSystem

    /// The session of this process, taken (once) at exit.
    private static let current = Mutex<InjectedTracking?>(nil)
    /// How long exit waits for the collector's acknowledgements (docs/gtk.md).
    static let exitFlushTimeout: Duration = .seconds(2)

    private init(tracking: PreloadTracking, hooks: GtkHookSystem) {
        self.tracking = tracking
        self.hooks = hooks
    }

    static func start() {
        // Under `ulimit -f` a spool write past the limit fails with EFBIG (and says so) instead of
        // SIGXFSZ killing the program.
        Posix.ignoreFileSizeLimitSignal()
        let env = Environment.current()
        Environment.removeSelfFromPreload()
        let program = Environment.programPath()
        guard GtkProgram.isGtk4(path: program) else {
            PreloadTracking.printError(GtkProgram.untrackedNotice(program: program))
            return
        }
        let settings = LaunchSettings(environment: env, program: program)
        do {
            try current.withLock { (slot: inout InjectedTracking?) throws(PreloadFailure) in
                slot = try InjectedTracking(settings: settings, environment: env)
            }
            atexit { InjectedTracking.finish() }
            watchEndingSignals()
        } catch {
            PreloadTracking.printError("autotrack: \(error); the program runs untracked")
        }
    }

    /// The pipeline to the collectors (or to NDJSON), then the hooks, then remote rules.
    private convenience init(settings: LaunchSettings, environment: [String: String]) throws(PreloadFailure) {
        let tracking = try PreloadTracking(settings: settings, environment: environment, agent: "autotrack-preload", label: "autotrack.preload")
        let pipeline = tracking.pipeline
        // Snapshots go on a connection of their own, only in circle mode (docs/gtk.md "Snapshots").
        let snapshots = tracking.snapshots
        let hooks = GtkHookSystem(
            observer: pipeline.tracker, treeDirectory: settings.treeDirectory, snapshots: snapshots.map { sender in { sender.send($0) } })
        // Snapshots blank what the plan in use (remote rules included) ignores.
        let tracker = pipeline.tracker
        hooks.ignorePatterns = { tracker.plan.ignore }
        // `run --snapshots`: circle mode from the start, whatever the collector says.
        let forced = settings.snapshots && snapshots != nil
        if forced { hooks.setCircleMode(true) }
        hooks.start()
        // Rules published to the collector reach the running app (docs/agent.md "Remote configuration"),
        // and its answers say when someone circles the app in the studio.
        if let refresher = pipeline.refresher, !forced {
            let setCircleMode = hooks.circleModeSetter
            refresher.onCircleModeChange { setCircleMode($0) }
        }
        self.init(tracking: tracking, hooks: hooks)
    }

    /// The ending signals (PreloadEnding) finish the session as at exit: the GTK hooks stop on the
    /// GTK thread (within `PreloadEnding.hooksStopWait`), the rest on the signal's thread.
    private static func watchEndingSignals() {
        PreloadEnding.watch {
            guard let session = current.withLock({ $0.take() }) else { return }
            // The hooks by address (they are the GTK thread's; the session stays alive here).
            let hooks = UInt(bitPattern: Unmanaged.passUnretained(session.hooks).toOpaque())
            GtkMainThread.run(within: PreloadEnding.hooksStopWait) {
                guard let pointer = UnsafeRawPointer(bitPattern: hooks) else { return }
                Unmanaged<GtkHookSystem>.fromOpaque(pointer).takeUnretainedValue().stop()
            }
            session.tracking.finish(within: exitFlushTimeout)
        }
    }

    /// At exit: pages still shown are left, then the events go out within `exitFlushTimeout`;
    /// whatever is not acknowledged by then stays in the spool for the next run.
    static func finish() {
        guard let session = current.withLock({ $0.take() }) else { return }
        session.hooks.stop()
        session.tracking.finish(within: exitFlushTimeout)
    }
}
