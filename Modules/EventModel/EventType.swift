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
    /// The type whose wire name is `utf8`, matched on the bytes (no `String` made): a candidate
    /// by length and a byte or two, then its whole name compared.
    init?(utf8: UnsafeBufferPointer<UInt8>) {
        guard utf8.count >= 5 else { return nil }
        let type: EventType
        switch (utf8.count, utf8[0], utf8[4]) {
        case (5, _, _): type = .click
        case (6, UInt8(ascii: "c"), _): type = .custom
        case (6, _, _): type = .scroll
        case (7, UInt8(ascii: "g"), _): type = .gesture
        case (7, _, _): type = .appEnd
        case (9, UInt8(ascii: "a"), _): type = .appStart
        case (9, _, _): type = .kvcError
        case (10, UInt8(ascii: "i"), _): type = .impression
        case (10, _, _): type = utf8[9] == UInt8(ascii: "r") ? .pageEnter : .pageLeave
        case (13, _, _): type = .valueChanged
        case (14, _, UInt8(ascii: "f")): type = .appForeground
        case (14, _, _): type = .appBackground
        case (15, _, _): type = .listItemClick
        default: return nil
        }
        var name = type.rawValue
        guard name.withUTF8({ ByteWord.same($0, utf8) }) else { return nil }
        self = type
    }
}
