import ATLPClient
import EventModel
import KVCConfig
import AgentPipeline
import Tracker
import ATLPWire

/// What `demo` and `replay` run: the one tracking pipeline (AgentPipeline's `TrackingPipeline`)
/// to collectors, with the commands' batching and backoff, and the lines they print about it.
extension TrackingPipeline {
    /// Events go to `link`'s collectors (the first that answers); batches are cut every 50 ms and
    /// reconnects back off from 50 ms to 2 s. With `remoteConfig`, the tracker asks the same
    /// collectors for rules (`CONFIG`).
    convenience init(
        plan: TrackingPlan, app: TrackedApp, link: CollectorLink, spool: String, session: String?,
        settings: TrackerSettings = TrackerSettings(), remoteConfig: Bool = false
    ) throws(SpoolError) {
        try self.init(
            plan: plan, app: app, session: session, settings: settings, label: "autotrack.\(link.hello.agent ?? "agent")", link: link,
            shipping: link.shipping(
                spool: spool, batchInterval: .milliseconds(50), backoff: Backoff(initial: .milliseconds(50), maximum: .seconds(2))),
            remoteConfig: remoteConfig)
    }

    /// `25 interactions: 26 events (1 kvc_error), session s-…: 26 acknowledged (26 stored, 0 duplicates, 0 rejected)`.
    var summary: String {
        let t = tracker.statistics
        let s = shipper?.statistics ?? ShipperStatistics()
        var line = "\(t.interactions) interactions: \(t.events) events (\(t.kvcErrors) kvc_error), session \(tracker.session): "
        line += "\(s.acknowledgedEvents) acknowledged (\(s.stored) stored, \(s.duplicates) duplicates, \(s.rejected) rejected)"
        let missing = s.pendingEvents + s.undeliverable + t.dropped
        if missing > 0 { line += ", \(missing) not acknowledged" }
        return line
    }

    /// Why delivery did not complete, for standard error.
    func failure(timeout: Duration, spool: String) -> String {
        let s = shipper?.statistics ?? ShipperStatistics()
        let collectors = shipper?.configuration.collectorsDescription ?? "no collector"
        if s.halted {
            var text = "the collector at \(collectors) refused delivery: \(s.lastError ?? "unknown reason")"
            if (s.lastError ?? "").contains("unauthorized") {
                text += "; check --token (or $AUTOTRACK_INGEST_TOKEN) against the collector's --ingest-token"
            }
            return text
        }
        return "\(s.pendingEvents) events not acknowledged by \(collectors) within \(timeout)"
            + (s.lastError.map { " (last error: \($0))" } ?? "") + "; they stay in the spool \(spool)"
    }
}
