import ATLPClient
import ATLPTLS
import ATLPWire
import CommandSupport
import EventModel
import KVCConfig
public import ProgramLaunch
public import AgentPipeline
import Reporters
import SecureChannel
import SystemCalls
import Tracker

/// Why a preload library could not start tracking; said on standard error, and the program runs untracked.
public struct PreloadFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What every preload library (GTK's, GNUstep's) sets up in a tracked program before its toolkit's
/// hooks, the same way: the plan of `AUTOTRACK_CONFIG`'s files, the app, the tracker's settings
/// (`AUTOTRACK_*` variables; the data directory per app by default), and the pipeline shipping to
/// `AUTOTRACK_TO`'s collectors through the spool (over TLS when asked, asking them for rules; an
/// unreachable collector is said once on standard error, and the program runs on) or, without
/// collectors, writing NDJSON. A toolkit's preload adds its hooks on top (docs/gtk.md, docs/objc.md).
public struct PreloadTracking {
    public let pipeline: TrackingPipeline
    /// Sends circle-mode pictures on a connection of their own; nil without a collector.
    public let snapshots: ATLPSnapshotSender?

    /// `agent`: the name the collector is told (`Hello`); `label`: the reporting queue's.
    public init(settings: LaunchSettings, environment: [String: String], agent: String, label: String) throws(PreloadFailure) {
        let plan = try Self.plan(settings)
        let app: TrackedApp
        do {
            app = try TrackedApp(key: settings.appKey, version: settings.appVersion)
        } catch {
            throw PreloadFailure(error.description)
        }
        let trackerSettings = try Self.trackerSettings(environment: environment, app: app)
        if let link = try Self.collectorLink(settings, app: app, agent: agent) {
            pipeline = try Self.shippingPipeline(
                plan: plan, app: app, trackerSettings: trackerSettings, link: link, settings: settings, label: label)
            let tracker = pipeline.tracker
            snapshots = link.snapshotSender(device: { tracker.identity.namedDevice })
        } else {
            let path = settings.out ?? "/dev/stderr"
            do {
                let reporter = try JSONLinesFileReporter(path: path)
                pipeline = TrackingPipeline(plan: plan, app: app, settings: trackerSettings, label: label, reporter: reporter)
            } catch {
                throw PreloadFailure("\(path) cannot be written: \(error)")
            }
            snapshots = nil
        }
    }

    /// After the hooks stopped: pictures given up (they are not events: one still queued is
    /// lost, not waited for), the tracker stopped, the events drained within `timeout` (what is not
    /// acknowledged by then stays in the spool for the next run), the pipeline closed.
    public func finish(within timeout: Duration) {
        _ = snapshots?.close(timeout: .milliseconds(100))
        pipeline.tracker.stop()
        _ = pipeline.drain(deadline: ContinuousClock.now + timeout)
        pipeline.close()
    }

    /// Writes `line` and a newline to standard error.
    public static func printError(_ line: String) {
        Posix.writeToStandardError(line + "\n")
    }

    /// The plan of `AUTOTRACK_CONFIG`'s files (empty without them).
    private static func plan(_ settings: LaunchSettings) throws(PreloadFailure) -> TrackingPlan {
        guard !settings.configFiles.isEmpty else { return TrackingPlan() }
        do {
            return try TrackingPlan.load(files: settings.configFiles)
        } catch {
            throw PreloadFailure(error.problems.map(\.description).joined(separator: "; "))
        }
    }

    /// The tracker's own settings (config refresh, session timeout, data directory) come from
    /// AUTOTRACK_* variables too; the device id and the last good remote rules live in the data directory.
    private static func trackerSettings(environment: [String: String], app: TrackedApp) throws(PreloadFailure) -> TrackerSettings {
        var trackerSettings: TrackerSettings
        do {
            trackerSettings = try TrackerSettings().applying(environment: environment)
        } catch {
            throw PreloadFailure(error.description)
        }
        if trackerSettings.dataDirectory == nil {
            trackerSettings.dataDirectory = AgentDataDirectory.default(appKey: app.key, environment: environment)
        }
        return trackerSettings
    }

    /// `AUTOTRACK_TO`'s collectors, over TLS when asked; nil without collectors (events go to NDJSON).
    private static func collectorLink(_ settings: LaunchSettings, app: TrackedApp, agent: String) throws(PreloadFailure) -> CollectorLink? {
        guard !settings.collectors.isEmpty else { return nil }
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
                throw PreloadFailure(
                    "cannot set up TLS: \(error); check \(LaunchSettings.tlsAuthorityKey) (a PEM file of the collector's authority)")
            }
        }
        let hello = Hello(appKey: app.key, appVersion: app.version, agent: agent, token: settings.token)
        return CollectorLink(addresses: addresses, hello: hello, security: security)
    }

    /// The pipeline shipping to `link` through the spool, asking it for rules; an unreachable
    /// collector is said once on standard error, and the program runs on.
    private static func shippingPipeline(
        plan: TrackingPlan, app: TrackedApp, trackerSettings: TrackerSettings, link: CollectorLink, settings: LaunchSettings,
        label: String
    ) throws(PreloadFailure) -> TrackingPipeline {
        let spool = settings.spoolDirectory
        let shipping = link.shipping(
            spool: spool, batchInterval: .milliseconds(100), backoff: Backoff(initial: .milliseconds(100), maximum: .seconds(5)))
        let collectors = shipping.addresses.count == 1
            ? "the collector at \(shipping.collectorsDescription) cannot be reached"
            : "none of the collectors at \(shipping.collectorsDescription) can be reached"
        let pipeline: TrackingPipeline
        do {
            pipeline = try TrackingPipeline(
                plan: plan, app: app, settings: trackerSettings, label: label, link: link, shipping: shipping, remoteConfig: true,
                onUnreachable: { error in
                    printError(
                        "autotrack: \(collectors) (\(error)); the program runs on, and its events are kept in the "
                            + "spool \(spool) and sent when a collector answers")
                })
        } catch {
            throw PreloadFailure("the spool \(spool) cannot be used: \(error)")
        }
        for problem in pipeline.shipper?.unusableSpoolFiles ?? [] { printError("autotrack: \(problem)") }
        return pipeline
    }
}

/// The signals that end a program from outside (a session ending, `kill`, a service manager),
/// caught by a preload when the program left them at their default action, so the session is
/// finished as at exit (pages left, `app_end`, a drain) before the program dies of the same
/// signal. A program that handles or ignores one keeps it.
public enum PreloadEnding {
    public static let signals = [SIGTERM, SIGINT, SIGHUP]

    /// How long a signal's cleanup waits for the UI thread to stop the hooks before it stops them
    /// itself (the UI thread may be busy in the app's own code).
    public static let hooksStopWait: Duration = .seconds(1)

    /// Routes those of `signals` still at their default action to a thread of the preload's,
    /// which calls `finish` when one comes, then lets the program die of it.
    public static func watch(_ finish: @escaping @Sendable () -> Void) {
        let caught = signals.filter(Posix.hasDefaultAction)
        guard !caught.isEmpty, let (readFD, previous) = try? Posix.routeSignalsToPipe(caught) else { return }
        // Lives as long as the process: it waits for a signal, and a stop is the signal's.
        ServiceThread(threadName: "autotrack-end").start { _ in
            let signal = Posix.awaitSignal(readFD)
            guard signal != 0 else { return }
            finish()
            Posix.unrouteSignals(previous, readFD: readFD)
            Posix.dieOfSignal(signal)
        }
    }
}
