import ATLPClient
import ATLPWire
import CommandSupport
import EventModel
import Foundation
import KVCConfig
import RemoteConfig
import SecureChannel
import Reporters
import SystemCalls
import Tracker

/// What `demo` and `replay` run: a tracker that applies a plan and reports over TCP through a
/// spooled shipper, behind a consent gate. Owns the shipper's thread (and, with
/// `remoteConfig`, the tracker's configuration thread); `close` stops them.
final class TrackingPipeline {
    let tracker: Tracker
    let reporting: ReportingSystem
    let shipper: EventShipper
    let refresher: ConfigRefresher?

    /// Events go to the first of `addresses` that answers, over `security` (nil: plain TCP).
    /// With `remoteConfig`, the tracker asks the same collectors for rules (`CONFIG`) at start and
    /// every `settings.configRefresh`.
    init(
        plan: TrackingPlan, app: TrackedApp, to addresses: [SocketAddress], security: SecureChannelFactory? = nil,
        token: String?, spool: String, session: String?, agent: String, settings: TrackerSettings = TrackerSettings(),
        remoteConfig: Bool = false
    ) throws(SpoolError) {
        precondition(!addresses.isEmpty, "a tracking pipeline needs a collector address")
        let hello = Hello(appKey: app.key, appVersion: app.version, agent: agent, token: token)
        var configuration = EventShipperConfiguration(
            address: addresses[0], failover: Array(addresses.dropFirst()), hello: hello, spoolDirectory: spool,
            batchInterval: .milliseconds(50), backoff: Backoff(initial: .milliseconds(50), maximum: .seconds(2)))
        configuration.security = security
        shipper = try EventShipper(configuration: configuration)
        let gate = ConsentGate([TCPReporter(shipper: shipper)])
        reporting = ReportingSystem([gate], label: "autotrack.\(agent)")
        tracker = Tracker(plan: plan, app: app, reporting: reporting, session: session, settings: settings)
        // Withdrawn consent drops what the reporting queue still holds and what the spool has not sent.
        tracker.onDiscard { [shipper] in
            gate.discard(upTo: $0)
            shipper.discardUnsent()
        }
        refresher = remoteConfig ? tracker.startRemoteConfig(source: ATLPRulesSource(addresses: addresses, hello: hello, security: security)) : nil
    }

    /// Delivers everything reported so far to the collector: true when all of it was acknowledged
    /// within `timeout` (or delivery halted, e.g. a wrong token: see `statistics.halted`).
    func drain(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        guard reporting.flush(timeout: timeout) else { return false }
        let left = deadline - ContinuousClock.now
        return shipper.flush(timeout: max(left, .milliseconds(1)))
    }

    /// Stops the configuration thread and the shipper; whatever was not acknowledged stays in its spool.
    func close() {
        tracker.stop()
        _ = shipper.close(timeout: .zero)
    }

    /// `25 interactions: 26 events (1 kvc_error), session s-…: 26 acknowledged (26 stored, 0 duplicates, 0 rejected)`.
    var summary: String {
        let t = tracker.statistics
        let s = shipper.statistics
        var line = "\(t.interactions) interactions: \(t.events) events (\(t.kvcErrors) kvc_error), session \(tracker.session): "
        line += "\(s.acknowledgedEvents) acknowledged (\(s.stored) stored, \(s.duplicates) duplicates, \(s.rejected) rejected)"
        let missing = s.pendingEvents + s.undeliverable + t.dropped
        if missing > 0 { line += ", \(missing) not acknowledged" }
        return line
    }

    /// Why delivery did not complete, for standard error.
    func failure(timeout: Duration, spool: String) -> String {
        let s = shipper.statistics
        if s.halted {
            var text = "the collector at \(shipper.configuration.collectorsDescription) refused delivery: \(s.lastError ?? "unknown reason")"
            if (s.lastError ?? "").contains("unauthorized") {
                text += "; check --token (or $AUTOTRACK_INGEST_TOKEN) against the collector's --ingest-token"
            }
            return text
        }
        return "\(s.pendingEvents) events not acknowledged by \(shipper.configuration.collectorsDescription) within \(timeout)"
            + (s.lastError.map { " (last error: \($0))" } ?? "") + "; they stay in the spool \(spool)"
    }
}

/// A temporary folder of a command run, removed by `remove()`.
struct ScratchFolder {
    let path: String

    init(_ label: String) throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("autotrack-\(label)-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Loads configuration files into a plan, or prints every problem and returns nil.
func loadPlan(files: [String], io: any OutputStreams, command: String) -> TrackingPlan? {
    do {
        return try TrackingPlan.load(files: files)
    } catch {
        for p in error.problems { io.printError("\(command): \(p)") }
        io.printError("\(command): fix the configuration above (docs/config.md describes the three document shapes)")
        return nil
    }
}

/// A duration of `seconds`, for options given in seconds.
func duration(seconds: Double) -> Duration { .milliseconds(Int64(seconds * 1000)) }
