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

/// What the preload runs in a tracked program: tracker, reporting, shipper and hooks.
final class PreloadSession {
    let tracker: Tracker
    let reporting: ReportingSystem
    let shipper: EventShipper?
    let hooks: GtkHookSystem
    let snapshots: ATLPSnapshotSender?

    /// The session of this process, taken (once) at exit.
    private static let current = Mutex<PreloadSession?>(nil)
    /// How long exit waits for the collector's acknowledgements (docs/gtk.md).
    static let exitFlushTimeout: Duration = .seconds(2)

    private init(
        tracker: Tracker, reporting: ReportingSystem, shipper: EventShipper?, hooks: GtkHookSystem, snapshots: ATLPSnapshotSender?
    ) {
        self.tracker = tracker
        self.reporting = reporting
        self.shipper = shipper
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
        } catch {
            Environment.printError("autotrack: \(error); the program runs untracked")
        }
    }

    private convenience init(settings: LaunchSettings, environment: [String: String]) throws(PreloadError) {
        var plan = TrackingPlan()
        if !settings.configFiles.isEmpty {
            do {
                plan = try TrackingPlan.load(files: settings.configFiles)
            } catch {
                throw PreloadError(error.problems.map(\.description).joined(separator: "; "))
            }
        }
        let app: TrackedApp
        do {
            app = try TrackedApp(key: settings.appKey, version: settings.appVersion)
        } catch {
            throw PreloadError(error.description)
        }
        // The tracker's own settings (config refresh, session timeout, data directory) come from
        // AUTOTRACK_* variables too; the device id and the last good remote rules live in the data directory.
        var trackerSettings: TrackerSettings
        do {
            trackerSettings = try TrackerSettings().applying(environment: environment)
        } catch {
            throw PreloadError(error.description)
        }
        if trackerSettings.dataDirectory == nil {
            trackerSettings.dataDirectory = AgentDataDirectory.default(appKey: app.key, environment: environment)
        }
        var shipper: EventShipper?
        var rulesSource: ATLPRulesSource?
        var snapshots: ATLPSnapshotSender?
        let reporter: any Reporter
        if !settings.collectors.isEmpty {
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
            rulesSource = ATLPRulesSource(addresses: addresses, hello: hello, security: security)
            // Snapshots go on a connection of their own, only in circle mode (docs/gtk.md "Snapshots").
            snapshots = ATLPSnapshotSender(addresses: addresses, hello: hello, security: security)
            var configuration = EventShipperConfiguration(
                address: addresses[0], failover: Array(addresses.dropFirst()), hello: hello,
                spoolDirectory: settings.spoolDirectory, batchInterval: .milliseconds(100),
                backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
            configuration.security = security
            do {
                let spool = settings.spoolDirectory
                let collectors = configuration.addresses.count == 1
                    ? "the collector at \(configuration.collectorsDescription) cannot be reached"
                    : "none of the collectors at \(configuration.collectorsDescription) can be reached"
                let s = try EventShipper(
                    configuration: configuration,
                    onUnreachable: { error in
                        Environment.printError(
                            "autotrack: \(collectors) (\(error)); the program runs on, and its events are kept in the "
                                + "spool \(spool) and sent when a collector answers")
                    })
                for problem in s.unusableSpoolFiles { Environment.printError("autotrack: \(problem)") }
                shipper = s
                reporter = TCPReporter(shipper: s, flushTimeout: PreloadSession.exitFlushTimeout)
            } catch {
                throw PreloadError("the spool \(settings.spoolDirectory) cannot be used: \(error)")
            }
        } else {
            let path = settings.out ?? "/dev/stderr"
            do {
                reporter = try JSONLinesFileReporter(path: path)
            } catch {
                throw PreloadError("\(path) cannot be written: \(error)")
            }
        }
        let gate = ConsentGate([reporter])
        let reporting = ReportingSystem([gate], label: "autotrack.preload")
        let tracker = Tracker(plan: plan, app: app, reporting: reporting, settings: trackerSettings)
        tracker.onDiscard { [shipper] in
            gate.discard(upTo: $0)
            shipper?.discardUnsent()
        }
        let hooks = GtkHookSystem(
            observer: tracker, treeDirectory: settings.treeDirectory, snapshots: snapshots.map { sender in { sender.send($0) } })
        // Snapshots blank what the plan in use (remote rules included) ignores.
        hooks.ignorePatterns = { tracker.plan.ignore }
        // `run --snapshots`: circle mode from the start, whatever the collector says.
        let forced = settings.snapshots && snapshots != nil
        if forced { hooks.setCircleMode(true) }
        hooks.start()
        // Rules published to the collector reach the running app (docs/agent.md "Remote configuration"),
        // and its answers say when someone circles the app in the studio.
        if let rulesSource {
            let refresher = tracker.startRemoteConfig(source: rulesSource)
            let setCircleMode = hooks.circleModeSetter
            if !forced { refresher.onCircleModeChange { setCircleMode($0) } }
        }
        self.init(tracker: tracker, reporting: reporting, shipper: shipper, hooks: hooks, snapshots: snapshots)
    }

    /// At exit: pages still shown are left, then the events go out within `exitFlushTimeout`;
    /// whatever is not acknowledged by then stays in the spool for the next run.
    static func finish() {
        guard let session = current.withLock({ $0.take() }) else { return }
        session.hooks.stop()
        // Snapshots are not events: one still queued is lost, not waited for.
        session.snapshots?.close(timeout: .milliseconds(100))
        session.tracker.stop()
        let deadline = ContinuousClock.now + exitFlushTimeout
        _ = session.reporting.flush(timeout: exitFlushTimeout)
        if let shipper = session.shipper {
            _ = shipper.flush(timeout: max(deadline - ContinuousClock.now, .milliseconds(1)))
            _ = shipper.close(timeout: .zero)
        }
    }

}

/// Why the preload could not start tracking.
struct PreloadError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
