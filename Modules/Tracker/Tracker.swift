import EventModel
import Hooks
import KVCConfig
import Reporters
import Synchronization
import ViewIdentity

/// The SDK's core pipeline: observes hooked interactions, applies the tracking plan, reports events.
///
/// `observe` runs synchronously on the thread that delivers the interaction (the UI thread): it
/// reads KVC values from the live node at once, since a reused cell shows other data a moment
/// later, then only submits to the reporting system, which delivers on its own queue.
/// Timestamps are the interaction's, from the hooks' injectable `HookClock`.
public final class Tracker: InteractionObserver, Sendable {
    /// How much a tracker has done.
    public struct Statistics: Sendable, Hashable {
        public var interactions = 0
        /// Events submitted, `kvc_error` events included.
        public var events = 0
        public var kvcErrors = 0
        /// Events the reporting system refused (its queue was full).
        public var dropped = 0

        public init(interactions: Int = 0, events: Int = 0, kvcErrors: Int = 0, dropped: Int = 0) {
            self.interactions = interactions
            self.events = events
            self.kvcErrors = kvcErrors
            self.dropped = dropped
        }
    }

    public let shaper: EventShaper
    public let reporting: ReportingSystem
    public let ids: EventIDGenerator
    /// Every event's `session`; also the prefix of every event id.
    public var session: String { ids.prefix }
    private let counters = Mutex(Statistics())

    /// A tracker for `app` that applies `plan` and submits to `reporting`; `session` nil draws a fresh id.
    public init(plan: TrackingPlan, app: TrackedApp, reporting: ReportingSystem, session: String? = nil) {
        shaper = EventShaper(plan: plan, app: app)
        self.reporting = reporting
        ids = EventIDGenerator(prefix: session ?? Tracker.newSessionID())
    }

    /// A fresh session id: `s-` and 16 random hexadecimal digits.
    public static func newSessionID() -> String { "s-" + EventIDGenerator().prefix }

    public var statistics: Statistics { counters.withLock { $0 } }

    public func observe(_ interaction: Interaction) {
        let events = events(for: interaction)
        var dropped = 0
        for e in events where !reporting.submit(e) { dropped += 1 }
        counters.withLock { s in
            s.interactions += 1
            s.events += events.count
            s.kvcErrors += events.count { $0.type == .kvcError }
            s.dropped += dropped
        }
    }

    /// The events for one interaction (what `observe` submits): the interaction's own event, then
    /// its `kvc_error`s. Reads the live node now.
    public func events(for interaction: Interaction) -> [TrackEvent] {
        let base = interaction.trackEvent(id: ids.next(), session: session)
        return shaper.events(
            base: base, node: interaction.node, viewEvent: interaction.kind.viewEvent,
            className: Tracker.className(of: interaction), action: interaction.eventCode?.action, nextID: ids.next)
    }

    /// The class the event table is keyed by: the controller's for page events, the target's for actions.
    static func className(of interaction: Interaction) -> String? {
        switch interaction.kind {
        case .pageEnter, .pageLeave:
            return interaction.node.map { $0.typeName } ?? interaction.page
        default:
            return interaction.eventCode?.target
        }
    }
}

extension Interaction.Kind {
    /// The KVC rule event (config.md §3) this kind of interaction is; nil for app lifecycle events.
    public var viewEvent: ViewEvent? {
        switch self {
        case .click: return .buttonClick
        case .listItemClick: return .listItemClick
        case .gesture: return .viewTap
        case .valueChanged: return .valueChanged
        case .pageEnter: return .pageEnter
        case .pageLeave: return .pageLeave
        case .scroll: return .scroll
        case .appStart, .appForeground, .appBackground: return nil
        }
    }
}
