public import EventModel
public import KVCConfig

/// What each kind of interaction is as an event, in one table: its wire type (docs/wire.md §3)
/// and the KVC rule event that names it (docs/config.md §3). The wire event of an interaction
/// (`Interaction.eventType`), the tracker's rule lookup (`viewEvent`) and the collector's count of
/// a rule's events (`ViewEvent.eventType`, Modules/Definitions) all read it, so a toolkit's tap,
/// the rule that names it and the stored event agree.
extension Interaction.Kind {
    /// The wire type and the rule event of this kind; app lifecycle events have no rule event.
    private var events: (type: EventType, viewEvent: ViewEvent?) {
        switch self {
        case .click: return (.click, .buttonClick)
        case .listItemClick: return (.listItemClick, .listItemClick)
        case .valueChanged: return (.valueChanged, .valueChanged)
        case .gesture: return (.gesture, .viewTap)
        case .pageEnter: return (.pageEnter, .pageEnter)
        case .pageLeave: return (.pageLeave, .pageLeave)
        case .scroll: return (.scroll, .scroll)
        case .impression: return (.impression, .impression)
        case .appStart: return (.appStart, nil)
        case .appForeground: return (.appForeground, nil)
        case .appBackground: return (.appBackground, nil)
        case .appEnd: return (.appEnd, nil)
        }
    }

    /// The wire type of this kind's events.
    public var eventType: EventType { events.type }

    /// The KVC rule event (docs/config.md §3) this kind of interaction is; nil for app lifecycle events.
    public var viewEvent: ViewEvent? { events.viewEvent }

    /// The kind of interaction a rule on `viewEvent` listens for (each rule event names exactly one).
    public init(_ viewEvent: ViewEvent) {
        guard let kind = Interaction.Kind.allCases.first(where: { $0.viewEvent == viewEvent }) else {
            preconditionFailure("no interaction kind is the rule event \(viewEvent)")
        }
        self = kind
    }
}
