/// A member of an event's wire form that the contract names (docs/wire.md §3); others are ignored.
enum EventField: Int, CaseIterable {
    case id, ts, type, name, page, path, viewId, session, user, device, duration, props

    /// The member's name on the wire.
    var name: String {
        switch self {
        case .id: return "id"
        case .ts: return "ts"
        case .type: return "type"
        case .name: return "name"
        case .page: return "page"
        case .path: return "path"
        case .viewId: return "viewId"
        case .session: return "session"
        case .user: return "user"
        case .device: return "device"
        case .duration: return "duration"
        case .props: return "props"
        }
    }

    /// The field a member name names, nil for any other name.
    init?(_ key: JSONStringToken, in bytes: UnsafeBufferPointer<UInt8>) {
        switch key {
        case .decoded(let s):
            guard let field = Self.allCases.first(where: { $0.name == s }) else { return nil }
            self = field
        case .ascii(let range):
            // Matched on the bytes (length, first and last byte, then the whole name): no String
            // is made for the names every event repeats.
            let name = UnsafeBufferPointer(rebasing: bytes[range])
            guard let first = name.first, let last = name.last else { return nil }
            let field: EventField
            switch (name.count, first, last) {
            case (2, UInt8(ascii: "i"), _): field = .id
            case (2, UInt8(ascii: "t"), _): field = .ts
            case (4, UInt8(ascii: "t"), _): field = .type
            case (4, UInt8(ascii: "n"), _): field = .name
            case (4, UInt8(ascii: "p"), UInt8(ascii: "e")): field = .page
            case (4, UInt8(ascii: "p"), _): field = .path
            case (4, UInt8(ascii: "u"), _): field = .user
            case (5, _, _): field = .props
            case (6, UInt8(ascii: "v"), _): field = .viewId
            case (6, _, _): field = .device
            case (7, _, _): field = .session
            case (8, _, _): field = .duration
            default: return nil
            }
            guard field.name.utf8.withContiguousStorageIfAvailable({ $0.elementsEqual(name) }) == true else { return nil }
            self = field
        }
    }
}

/// The members of one event object that `TrackEvent(members:)` validates, each as sent (for a
/// repeated name, the last, as `JSONObject` keeps it).
struct EventMembers {
    /// One slot per `EventField`, by its raw value.
    private var values = InlineArray<12, JSONValue?>(repeating: nil)

    init() {}

    /// The named members of a parsed object.
    init(_ object: JSONObject) {
        for field in EventField.allCases { self[field] = object[field.name] }
    }

    subscript(field: EventField) -> JSONValue? {
        get { values[field.rawValue] }
        set { values[field.rawValue] = newValue }
    }
}

/// Reads one event object straight from the bytes into `EventMembers`: named members become
/// values, others are parsed (the syntax is checked as everywhere) and dropped, and `props`,
/// when its text is already what the writer writes for it, is kept as that text.
struct EventMemberReader: JSONMemberReader {
    var members = EventMembers()
    /// The text of `props` as sent, when it is an object written as `JSONValue.write` writes it.
    var canonicalProps: String?

    mutating func member(_ key: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError) {
        guard let field = EventField(key, in: parser.bytes) else {
            _ = try parser.parseValue()
            return
        }
        guard field == .props else {
            members[field] = try parser.parseValue()
            return
        }
        let start = parser.pos
        parser.canonical = true
        let value = try parser.parseValue()
        members[.props] = value
        canonicalProps =
            parser.canonical && value.objectValue != nil
            ? String(decoding: UnsafeBufferPointer(rebasing: parser.bytes[start..<parser.pos]), as: UTF8.self) : nil
    }
}
