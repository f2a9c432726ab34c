import AppKitTracking
import ATLPClient
import ATLPTLS
import ATLPWire
import CAutotrackObjCPreload
import CommandSupport
import EventModel
import KVCConfig
import ObjCRuntime
import ProgramLaunch
import RemoteConfig
import Reporters
import SecureChannel
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
    ObjCPreloadSession.start()
}

final class ObjCPreloadSession {
    let pipeline: TrackingPipeline
    let hooks: AppKitHookSystem
    let snapshots: ATLPSnapshotSender?
    /// Keeps the `-[NSProcessInfo environment]` hook for the life of the process.
    let environmentHook: MethodHook?

    private static let current = Mutex<ObjCPreloadSession?>(nil)
    static let exitFlushTimeout: Duration = .seconds(2)

    private init(pipeline: TrackingPipeline, hooks: AppKitHookSystem, snapshots: ATLPSnapshotSender?, environmentHook: MethodHook?) {
        self.pipeline = pipeline
        self.hooks = hooks
        self.snapshots = snapshots
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
            printError(
                "autotrack: _Block_copy resolves to \(found.isEmpty ? "no library" : found), not to Swift's \(GNUstepProgram.blocksRuntimeName): "
                    + "put \(GNUstepProgram.blocksRuntimeName) first in LD_PRELOAD (autotrack-agent run does); the program runs untracked")
            return
        }
        let settings = LaunchSettings(environment: env, program: program)
        do {
            try current.withLock { (slot: inout ObjCPreloadSession?) throws(PreloadFailure) in
                slot = try ObjCPreloadSession(settings: settings, environment: env)
            }
            atexit { ObjCPreloadSession.finish() }
            watchEndingSignals()
        } catch {
            printError("autotrack: \(error); the program runs untracked")
        }
    }

    private convenience init(settings: LaunchSettings, environment: [String: String]) throws(PreloadFailure) {
        var plan = TrackingPlan()
        if !settings.configFiles.isEmpty {
            do {
                plan = try TrackingPlan.load(files: settings.configFiles)
            } catch {
                throw PreloadFailure(error.problems.map(\.description).joined(separator: "; "))
            }
        }
        let app: TrackedApp
        var trackerSettings: TrackerSettings
        do {
            app = try TrackedApp(key: settings.appKey, version: settings.appVersion)
            trackerSettings = try TrackerSettings().applying(environment: environment)
        } catch {
            throw PreloadFailure("\(error)")
        }
        if trackerSettings.dataDirectory == nil {
            trackerSettings.dataDirectory = AgentDataDirectory.default(appKey: app.key, environment: environment)
        }
        let pipeline = try Self.pipeline(settings: settings, plan: plan, app: app, trackerSettings: trackerSettings)
        // Pictures go on a connection of their own, only in circle mode (docs/objc.md "Pictures").
        let tracker = pipeline.tracker
        let snapshots = pipeline.link?.snapshotSender(device: { tracker.identity.namedDevice })
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
        self.init(pipeline: pipeline, hooks: hooks, snapshots: snapshots, environmentHook: Self.hideSelfFromTasks())
    }

    private static func pipeline(
        settings: LaunchSettings, plan: TrackingPlan, app: TrackedApp, trackerSettings: TrackerSettings
    ) throws(PreloadFailure) -> TrackingPipeline {
        guard !settings.collectors.isEmpty else {
            let path = settings.out ?? "/dev/stderr"
            do {
                let reporter = try JSONLinesFileReporter(path: path)
                return TrackingPipeline(plan: plan, app: app, settings: trackerSettings, label: "autotrack.objc-preload", reporter: reporter)
            } catch {
                throw PreloadFailure("\(path) cannot be written: \(error)")
            }
        }
        var addresses: [SocketAddress] = []
        for collector in settings.collectors {
            do throws(UsageError) {
                let address = try HostPort(collector)
                addresses.append(SocketAddress(host: address.host, port: address.port))
            } catch {
                throw PreloadFailure("\(LaunchSettings.collectorKey): \(error)")
            }
        }
        var security: SecureChannelFactory?
        if settings.tls {
            do throws(SecureChannelError) {
                security = try TLSContext.client(trusting: settings.tlsAuthorityFile).channels
            } catch {
                throw PreloadFailure("cannot set up TLS: \(error); check \(LaunchSettings.tlsAuthorityKey)")
            }
        }
        let hello = Hello(appKey: app.key, appVersion: app.version, agent: "autotrack-objc-preload", token: settings.token)
        let link = CollectorLink(addresses: addresses, hello: hello, security: security)
        let spool = settings.spoolDirectory
        let shipping = link.shipping(
            spool: spool, batchInterval: .milliseconds(100), backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        let collectors = shipping.collectorsDescription
        do {
            return try TrackingPipeline(
                plan: plan, app: app, settings: trackerSettings, label: "autotrack.objc-preload", link: link, shipping: shipping,
                remoteConfig: true,
                onUnreachable: { error in
                    printError(
                        "autotrack: the collector at \(collectors) cannot be reached (\(error)); the program runs on, and its events are "
                            + "kept in the spool \(spool) and sent when a collector answers")
                })
        } catch {
            throw PreloadFailure("the spool \(spool) cannot be used: \(error)")
        }
    }

    /// GNUstep's `NSProcessInfo` read the environment before this constructor ran, and `NSTask`
    /// starts children (the `gdnc` daemon too) with it: its answer leaves `LD_PRELOAD` out.
    private static func hideSelfFromTasks() -> MethodHook? {
        guard let processInfo = ObjCClass.named("NSProcessInfo") else { return nil }
        let key = "LD_PRELOAD"
        // The answer without LD_PRELOAD, made once and kept (advice runs in a pool of its own, so
        // an autoreleased copy would be gone before the caller got it).
        nonisolated(unsafe) var kept: ObjCObject?
        return try? MethodHook(cls: processInfo, selector: "environment") { phase, call in
            guard phase == .after, let environment = call.objectResult else { return false }
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
        session.finishReporting()
    }

    /// After the hooks stopped: pictures given up, the tracker stopped, events drained.
    private func finishReporting() {
        // Pictures are not events: one still queued is lost, not waited for.
        _ = snapshots?.close(timeout: .milliseconds(100))
        pipeline.tracker.stop()
        _ = pipeline.drain(deadline: ContinuousClock.now + Self.exitFlushTimeout)
        pipeline.close()
    }

    /// The signals that end a program from outside (a session ending, `kill`, a service
    /// manager), caught when the program left them at their default action, as the GTK preload
    /// does (docs/gtk.md "Ending"): the session is finished as at exit, then the program dies of
    /// the same signal. One the program handles or ignores stays the program's.
    static let endingSignals = [SIGTERM, SIGINT, SIGHUP]

    /// How long a signal's cleanup waits for the main thread to stop the hooks before it stops
    /// them itself (the run loop may be busy in the app's own code).
    static let hooksStopWait: Duration = .seconds(1)

    private static func watchEndingSignals() {
        let signals = endingSignals.filter(Posix.hasDefaultAction)
        guard !signals.isEmpty, let (readFD, previous) = try? Posix.routeSignalsToPipe(signals) else { return }
        Posix.startThread(name: "autotrack-end") {
            let signal = Posix.awaitSignal(readFD)
            guard signal != 0 else { return }
            if let session = current.withLock({ $0.take() }) {
                // The hooks by address (they are the main thread's; the session stays alive here).
                let hooks = UInt(bitPattern: Unmanaged.passUnretained(session.hooks).toOpaque())
                let stop = ClaimedWork {
                    guard let pointer = UnsafeRawPointer(bitPattern: hooks) else { return }
                    Unmanaged<AppKitHookSystem>.fromOpaque(pointer).takeUnretainedValue().stop()
                }
                MainThread.async { stop.runIfUnclaimed() }
                stop.wait(within: hooksStopWait)
                session.finishReporting()
            }
            Posix.unrouteSignals(previous, readFD: readFD)
            Posix.dieOfSignal(signal)
        }
    }
}

func printError(_ line: String) { Posix.writeToStandardError(line + "\n") }

struct PreloadFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
