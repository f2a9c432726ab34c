public import ATLPClient
import EventModel
public import KVCConfig
public import Reporters
public import Tracker

/// A tracker wired to where its events go, the one way every agent does it (`demo`, `replay`,
/// the GTK preload library): tracker → reporting system (its own thread) → consent gate →
/// a spooled `EventShipper` to collectors (or any reporter, e.g. NDJSON to a file).
///
/// Withdrawn consent drops what the reporting queue still holds and what the spool has not sent.
/// With `remoteConfig`, the tracker asks the same collectors for rules (`CONFIG`) at start and
/// every `settings.configRefresh`. `drain(deadline:)` delivers; `close()` stops the threads.
public final class TrackingPipeline {
    public let tracker: Tracker
    public let reporting: ReportingSystem
    /// The shipper to the collectors; nil when events go to a reporter.
    public let shipper: EventShipper?
    /// The collectors; nil when events go to a reporter.
    public let link: CollectorLink?
    /// The remote configuration's refresher, when asked for.
    public let refresher: ConfigRefresher?

    /// Events go to `link`'s collectors through a shipper made with `shipping`;
    /// `onUnreachable` is told once when every collector failed in turn (see `EventShipper`).
    public convenience init(
        plan: TrackingPlan, app: TrackedApp, session: String? = nil, settings: TrackerSettings = TrackerSettings(),
        label: String, link: CollectorLink, shipping: EventShipperConfiguration, remoteConfig: Bool,
        onUnreachable: (@Sendable (TransportError) -> Void)? = nil
    ) throws(SpoolError) {
        let shipper = try EventShipper(configuration: shipping, onUnreachable: onUnreachable)
        self.init(
            plan: plan, app: app, session: session, settings: settings, label: label, reporter: SpooledATLPReporter(shipper: shipper),
            shipper: shipper, link: link, remoteConfig: remoteConfig)
    }

    /// Events go to `reporter` (say a `JSONLinesFileReporter`); no collector is involved.
    public convenience init(
        plan: TrackingPlan, app: TrackedApp, session: String? = nil, settings: TrackerSettings = TrackerSettings(),
        label: String, reporter: any Reporter
    ) {
        self.init(
            plan: plan, app: app, session: session, settings: settings, label: label, reporter: reporter, shipper: nil, link: nil,
            remoteConfig: false)
    }

    private init(
        plan: TrackingPlan, app: TrackedApp, session: String?, settings: TrackerSettings, label: String, reporter: any Reporter,
        shipper: EventShipper?, link: CollectorLink?, remoteConfig: Bool
    ) {
        self.shipper = shipper
        self.link = link
        let gate = ConsentGate([reporter])
        reporting = ReportingSystem([gate], label: label)
        let tracker = Tracker(plan: plan, app: app, reporting: reporting, session: session, settings: settings)
        self.tracker = tracker
        tracker.onDiscard { [shipper] in
            gate.discard(upTo: $0)
            shipper?.discardUnsent()
        }
        refresher = remoteConfig ? link.map { tracker.startRemoteConfig(source: $0.rulesSource) } : nil
    }

    /// Delivers everything reported so far, at most until `deadline`: the reporting queue hands
    /// its events over, then the shipper is flushed once, waiting (no polling) until the
    /// collector acknowledged everything or the deadline passed. True when everything was
    /// acknowledged (without a shipper: written and flushed by the reporter); false at the
    /// deadline or when delivery halted (a wrong token: see `shipper.statistics.halted`). What
    /// was not acknowledged stays in the spool.
    public func drain(deadline: ContinuousClock.Instant) -> Bool {
        guard let shipper else { return reporting.flush(timeout: deadline - ContinuousClock.now) }
        guard reporting.handOver(timeout: deadline - ContinuousClock.now) else { return false }
        return shipper.flush(until: deadline)
    }

    /// Stops the configuration thread and the shipper; whatever was not acknowledged stays in its spool.
    public func close() {
        tracker.stop()
        _ = shipper?.close(timeout: .zero)
    }
}
