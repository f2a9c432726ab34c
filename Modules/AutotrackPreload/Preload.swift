import CAutotrackPreload
import CGtk
import CommandSupport
import EventModel
import GtkTracking
import KVCConfig
import ProgramLaunch
import Reporters
import ATLPClient
import ATLPTLS
import ATLPWire
import RemoteConfig
import SecureChannel
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
    PreloadSession.start()
}

/// What the preload runs in a tracked program: the tracking pipeline (tracker, reporting,
/// consent gate, shipper) and the GTK hooks.
final class PreloadSession {
    let pipeline: TrackingPipeline
    let hooks: GtkHookSystem
    let snapshots: ATLPSnapshotSender?

    /// The session of this process, taken (once) at exit.
    private static let current = Mutex<PreloadSession?>(nil)
    /// How long exit waits for the collector's acknowledgements (docs/gtk.md).
    static let exitFlushTimeout: Duration = .seconds(2)

    private init(pipeline: TrackingPipeline, hooks: GtkHookSystem, snapshots: ATLPSnapshotSender?) {
        self.pipeline = pipeline
        self.hooks = hooks
        self.snapshots = snapshots
    }

    static func start() {
        // Under `ulimit -f` a spool write past the limit fails with EFBIG (and says so) instead of
        // SIGXFSZ killing the program.
        Posix.ignoreFileSizeLimitSignal()
        let env = Environment.current()
        Environment.removeSelfFromPreload()
        let program = Environment.programPath()
        guard GtkProgram.isGtk4(path: program) else {
            Environment.printError(GtkProgram.untrackedNotice(program: program))
            return
        }
        let settings = LaunchSettings(environment: env, program: program)
        do {
            try current.withLock { (slot: inout PreloadSession?) throws(PreloadError) in
                slot = try PreloadSession(settings: settings, environment: env)
            }
            atexit { PreloadSession.finish() }
            watchEndingSignals()
        } catch {
            Environment.printError("autotrack: \(error); the program runs untracked")
        }
    }

    /// The pipeline to the collectors (or to NDJSON), then the hooks, then remote rules.
    private convenience init(settings: LaunchSettings, environment: [String: String]) throws(PreloadError) {
        let plan = try Self.plan(settings)
        let app: TrackedApp
        do {
            app = try TrackedApp(key: settings.appKey, version: settings.appVersion)
        } catch {
            throw PreloadError(error.description)
        }
        let trackerSettings = try Self.trackerSettings(environment: environment, app: app)
        let pipeline: TrackingPipeline
        var snapshots: ATLPSnapshotSender?
        if let link = try Self.collectorLink(settings, app: app) {
            pipeline = try Self.shippingPipeline(plan: plan, app: app, trackerSettings: trackerSettings, link: link, settings: settings)
            // Snapshots go on a connection of their own, only in circle mode (docs/gtk.md "Snapshots").
            let tracker = pipeline.tracker
            snapshots = link.snapshotSender(device: { tracker.identity.namedDevice })
        } else {
            let path = settings.out ?? "/dev/stderr"
            do {
                let reporter = try JSONLinesFileReporter(path: path)
                pipeline = TrackingPipeline(plan: plan, app: app, settings: trackerSettings, label: "autotrack.preload", reporter: reporter)
            } catch {
                throw PreloadError("\(path) cannot be written: \(error)")
            }
        }
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
        self.init(pipeline: pipeline, hooks: hooks, snapshots: snapshots)
    }

    /// The plan of `AUTOTRACK_CONFIG`'s files (empty without them).
    private static func plan(_ settings: LaunchSettings) throws(PreloadError) -> TrackingPlan {
        guard !settings.configFiles.isEmpty else { return TrackingPlan() }
        do {
            return try TrackingPlan.load(files: settings.configFiles)
        } catch {
            throw PreloadError(error.problems.map(\.description).joined(separator: "; "))
        }
    }

    /// The tracker's own settings (config refresh, session timeout, data directory) come from
    /// AUTOTRACK_* variables too; the device id and the last good remote rules live in the data directory.
    private static func trackerSettings(environment: [String: String], app: TrackedApp) throws(PreloadError) -> TrackerSettings {
        var trackerSettings: TrackerSettings
        do {
            trackerSettings = try TrackerSettings().applying(environment: environment)
        } catch {
            throw PreloadError(error.description)
        }
        if trackerSettings.dataDirectory == nil {
            trackerSettings.dataDirectory = AgentDataDirectory.default(appKey: app.key, environment: environment)
        }
        return trackerSettings
    }

    /// `AUTOTRACK_TO`'s collectors, over TLS when asked; nil without collectors (events go to NDJSON).
    private static func collectorLink(_ settings: LaunchSettings, app: TrackedApp) throws(PreloadError) -> CollectorLink? {
        guard !settings.collectors.isEmpty else { return nil }
        var addresses: [SocketAddress] = []
        for collector in settings.collectors {
            do throws(UsageError) {
                let address = try HostPort(collector)
                addresses.append(SocketAddress(host: address.host, port: address.port))
            } catch {
                throw PreloadError("\(LaunchSettings.collectorKey): \(error)")
            }
        }
        var security: SecureChannelFactory?
        if settings.tls {
            do throws(SecureChannelError) {
                security = try TLSContext.client(trusting: settings.tlsAuthorityFile).channels
            } catch {
                throw PreloadError(
                    "cannot set up TLS: \(error); check \(LaunchSettings.tlsAuthorityKey) (a PEM file of the collector's authority)")
            }
        }
        let hello = Hello(appKey: app.key, appVersion: app.version, agent: "autotrack-preload", token: settings.token)
        return CollectorLink(addresses: addresses, hello: hello, security: security)
    }

    /// The pipeline shipping to `link` through the spool, asking it for rules; an unreachable
    /// collector is said once on standard error, and the program runs on.
    private static func shippingPipeline(
        plan: TrackingPlan, app: TrackedApp, trackerSettings: TrackerSettings, link: CollectorLink, settings: LaunchSettings
    ) throws(PreloadError) -> TrackingPipeline {
        let spool = settings.spoolDirectory
        let shipping = link.shipping(
            spool: spool, batchInterval: .milliseconds(100), backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        let collectors = shipping.addresses.count == 1
            ? "the collector at \(shipping.collectorsDescription) cannot be reached"
            : "none of the collectors at \(shipping.collectorsDescription) can be reached"
        let pipeline: TrackingPipeline
        do {
            pipeline = try TrackingPipeline(
                plan: plan, app: app, settings: trackerSettings, label: "autotrack.preload", link: link, shipping: shipping,
                remoteConfig: true,
                onUnreachable: { error in
                    Environment.printError(
                        "autotrack: \(collectors) (\(error)); the program runs on, and its events are kept in the "
                            + "spool \(spool) and sent when a collector answers")
                })
        } catch {
            throw PreloadError("the spool \(spool) cannot be used: \(error)")
        }
        for problem in pipeline.shipper?.unusableSpoolFiles ?? [] { Environment.printError("autotrack: \(problem)") }
        return pipeline
    }

    /// The signals that end a program from outside (a session ending, `kill`, a service
    /// manager): caught when the program left them at their default action, so the session is
    /// finished as at exit (pages left, `app_end`, a drain of `exitFlushTimeout`) before the
    /// program dies of the same signal. A program that handles or ignores one keeps it.
    static let endingSignals = [SIGTERM, SIGINT, SIGHUP]

    /// Routes `endingSignals` to a thread of the preload's, which finishes the session when one
    /// comes; the GTK hooks stop on the GTK thread (within `hooksStopWait`), the rest there.
    private static func watchEndingSignals() {
        let signals = endingSignals.filter(Posix.hasDefaultAction)
        guard !signals.isEmpty, let (readFD, previous) = try? Posix.routeSignalsToPipe(signals) else { return }
        Posix.startThread(name: "autotrack-end") {
            let signal = Posix.awaitSignal(readFD)
            guard signal != 0 else { return }
            if let session = current.withLock({ $0.take() }) {
                // The hooks by address (they are the GTK thread's; the session stays alive here).
                let hooks = UInt(bitPattern: Unmanaged.passUnretained(session.hooks).toOpaque())
                GtkMainThread.run(within: hooksStopWait) {
                    guard let pointer = UnsafeRawPointer(bitPattern: hooks) else { return }
                    Unmanaged<GtkHookSystem>.fromOpaque(pointer).takeUnretainedValue().stop()
                }
                session.finishReporting()
            }
            Posix.unrouteSignals(previous, readFD: readFD)
            Posix.dieOfSignal(signal)
        }
    }

    /// How long a signal's cleanup waits for the GTK thread to stop the hooks before it stops
    /// them itself (the main loop may be stuck in the app's own code).
    static let hooksStopWait: Duration = .seconds(1)

    /// At exit: pages still shown are left, then the events go out within `exitFlushTimeout`;
    /// whatever is not acknowledged by then stays in the spool for the next run.
    static func finish() {
        guard let session = current.withLock({ $0.take() }) else { return }
        session.hooks.stop()
        session.finishReporting()
    }

    /// After the hooks stopped: snapshots given up, the tracker stopped, events drained.
    private func finishReporting() {
        // Snapshots are not events: one still queued is lost, not waited for.
        snapshots?.close(timeout: .milliseconds(100))
        pipeline.tracker.stop()
        _ = pipeline.drain(deadline: ContinuousClock.now + Self.exitFlushTimeout)
        pipeline.close()
    }
}

/// Why the preload could not start tracking.
struct PreloadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
