public import EventModel
public import KVCConfig

extension ViewEvent {
    /// The wire type of the events a rule on this view event covers (as the hooks type them:
    /// a tap on a view is a `gesture`).
    public var eventType: EventType {
        switch self {
        case .buttonClick: return .click
        case .listItemClick: return .listItemClick
        case .impression: return .impression
        case .viewTap: return .gesture
        case .valueChanged: return .valueChanged
        case .pageEnter: return .pageEnter
        case .pageLeave: return .pageLeave
        case .scroll: return .scroll
        }
    }
}
