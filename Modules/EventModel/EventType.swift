/// The kinds of event on the wire (docs/wire.md §3).
public enum EventType: String, Sendable, Hashable, CaseIterable {
    case pageEnter = "page_enter"
    case pageLeave = "page_leave"
    case click
    case listItemClick = "list_item_click"
    case valueChanged = "value_changed"
    case scroll
    case gesture
    /// An element an impression rule selects was at least half visible for 500 ms (docs/agent.md "Impressions").
    case impression
    case appStart = "app_start"
    case appForeground = "app_foreground"
    case appBackground = "app_background"
    /// The app quits (docs/wire.md §3): `duration` and `props.duration` are its last foreground time.
    case appEnd = "app_end"
    case kvcError = "kvc_error"
    case custom
}

extension EventType {
    /// The type whose wire name is `utf8`, matched on the bytes (no `String` made).
    init?(utf8: UnsafeBufferPointer<UInt8>) {
        for (type, name) in Self.wireNames where name.count == utf8.count {
            if name.elementsEqual(utf8) {
                self = type
                return
            }
        }
        return nil
    }

    /// Each type's wire name as bytes.
    private static let wireNames = allCases.map { ($0, Array($0.rawValue.utf8)) }
}
