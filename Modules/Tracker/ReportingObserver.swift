import EventModel
public import Interactions
public import Reporters

/// The default observer: every interaction becomes a wire event, handed to a reporting system.
///
/// It reads nothing but the interaction; the configured `Tracker` adds rules and KVC values.
public final class ReportingObserver: InteractionObserver {
    public let reporting: ReportingSystem
    public let ids: EventIDGenerator
    public let session: String?

    public init(reporting: ReportingSystem, ids: EventIDGenerator = EventIDGenerator(), session: String? = nil) {
        self.reporting = reporting
        self.ids = ids
        self.session = session
    }

    public func observe(_ interaction: Interaction) {
        reporting.submit(interaction.trackEvent(id: ids.next(), session: session))
    }
}
