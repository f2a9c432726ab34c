/// A member of an event's wire form that the contract names (docs/wire.md §3); others are ignored.
enum EventField: Int, CaseIterable {
    case id, ts, type, name, page, path, viewId, session, user, device, duration, props

    /// The member's name on the wire.
    var name: String { wireName.description }

    /// The member's name on the wire, as bytes to match.
    private var wireName: StaticString {
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

    /// The field a member name names, nil for any other name (inlined into the event's member
    /// reader: it runs for every member of every event).
    @inline(__always)
    init?(_ key: JSONStringToken, in bytes: UnsafeBufferPointer<UInt8>) {
        switch key {
        case .decoded(let s):
            guard let field = Self.named(s) else { return nil }
            self = field
        case .ascii(let range): self.init(ascii: range, in: bytes)
        }
    }

    /// The field named `name` (a name with an escape or a byte beyond ASCII: never one of the fields).
    @inline(never)
    private static func named(_ name: String) -> EventField? { allCases.first { $0.name == name } }

    /// The field the ASCII name in `range` of `bytes` names, nil for any other name.
    @inline(__always)
    private init?(ascii range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
        // Matched on the bytes, the whole name as one integer (every name fits in 8 bytes, and
        // no byte of a name is 0, so the integer tells its length too): no String is made for
        // the names every event repeats. Eight bytes are loaded at once where the buffer holds
        // them (it always does after a name: `:`, a value and `}` follow), the bytes past the
        // name masked off.
        guard range.count <= 8 else { return nil }
        let packed: UInt64
        if let base = bytes.baseAddress, range.lowerBound + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + range.lowerBound).loadUnaligned(as: UInt64.self)
            packed = range.count == 8 ? word : word & ByteWord.lowBytes(range.count)
        } else {
            packed = Self.packed(UnsafeBufferPointer(rebasing: bytes[range]))
        }
        // Each name's bytes, the first in the lowest byte (`EventFieldTests` checks them all).
        switch packed {
        case 0x6469: self = .id  // "id"
        case 0x7374: self = .ts  // "ts"
        case 0x6570_7974: self = .type  // "type"
        case 0x656d_616e: self = .name  // "name"
        case 0x6567_6170: self = .page  // "page"
        case 0x6874_6170: self = .path  // "path"
        case 0x6449_7765_6976: self = .viewId  // "viewId"
        case 0x6e_6f69_7373_6573: self = .session  // "session"
        case 0x7265_7375: self = .user  // "user"
        case 0x6563_6976_6564: self = .device  // "device"
        case 0x6e6f_6974_6172_7564: self = .duration  // "duration"
        case 0x73_706f_7270: self = .props  // "props"
        default: return nil
        }
    }

    /// Up to 8 bytes as one integer, the first in the lowest byte.
    static func packed(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0
        var i = 0
        while i < bytes.count {
            value |= UInt64(bytes[i]) << (8 * i)
            i += 1
        }
        return value
    }
}

/// One member of an event as read, for the validator (`EventRecord(members:body:side:)`): no
/// value with a reference in it, so a batch's members are copied and dropped without counting.
enum EventMember {
    /// A string: its UTF-8 in the body or the side bytes.
    case text(EventText)
    case int(Int64)
    /// Any other value: its kind (for `props`, the object is `EventMembers.propsObject`).
    case other(JSONValue.Kind)
    /// `props` read from the bytes: an object whose text as sent is what the writer writes (no
    /// space, escape or repeated key, every number written as the writer writes it), each member
    /// checked by the props rule as it was read (the first it refused: `EventMembers.propsFault`).
    case writtenObject(EventText)

    /// The kind of value, for a refusal ("a string", "an object").
    var kind: JSONValue.Kind {
        switch self {
        case .text: return .string
        case .int: return .number
        case .other(let kind): return kind
        case .writtenObject: return .object
        }
    }
}

/// The members of one event object that the validator checks, each as sent (for a repeated
/// name, the last, as `JSONObject` keeps it).
struct EventMembers {
    // One slot per `EventField` (stored members, not an `InlineArray`: reading one slot of that
    // copied the whole array, ~300 bytes, for each field the validator read).
    private var id, ts, type, name, page, path, viewId, session, user, device, duration, props: EventMember?
    /// `props`' object, when it was read as a value (`.other(.object)`).
    private(set) var propsObject: JSONObject?
    /// The first member of a `.writtenObject` the props rule refused.
    private(set) var propsFault: EventValidationError?

    init() {}

    /// The named members of a parsed object (the generic path), their strings' bytes appended to `side`.
    init(_ object: JSONObject, side: inout [UInt8]) {
        for field in EventField.allCases {
            guard let value = object[field.name] else { continue }
            switch value {
            case .string(var s):
                let start = side.count
                s.withUTF8 { side.append(contentsOf: $0) }
                set(field, .text(EventText(side: start..<side.count)))
            case .int(let i): set(field, .int(i))
            default: set(field, value: value)
            }
        }
    }

    subscript(field: EventField) -> EventMember? {
        switch field {
        case .id: id
        case .ts: ts
        case .type: type
        case .name: name
        case .page: page
        case .path: path
        case .viewId: viewId
        case .session: session
        case .user: user
        case .device: device
        case .duration: duration
        case .props: props
        }
    }

    /// Sets a member read as text or an integer (the last of a repeated name wins).
    @inline(__always)
    mutating func set(_ field: EventField, _ member: EventMember) {
        switch field {
        case .id: id = member
        case .ts: ts = member
        case .type: type = member
        case .name: name = member
        case .page: page = member
        case .path: path = member
        case .viewId: viewId = member
        case .session: session = member
        case .user: user = member
        case .device: device = member
        case .duration: duration = member
        case .props: (props, propsObject, propsFault) = (member, nil, nil)
        }
    }

    /// Sets `props` read from the bytes as the writer writes it (`fault`: the first member the props rule refused).
    mutating func setWrittenProps(_ text: EventText, fault: EventValidationError?) {
        set(.props, .writtenObject(text))
        propsFault = fault
    }

    /// Sets a member read as any value.
    mutating func set(_ field: EventField, value: JSONValue) {
        switch value {
        case .int(let i): set(field, .int(i))
        default:
            set(field, .other(value.kind))
            if field == .props, case .object(let o) = value { propsObject = o }
        }
    }
}

/// Reads one event object straight from the bytes into `EventMembers`: strings as spans of the
/// body (unescaped into `side` when they have an escape), integers as integers, other named
/// members as values; members of other names are parsed (the syntax is checked as everywhere)
/// and dropped; `props` is scanned member by member (`PropsReader`) and kept as its span when
/// its text is already what the writer writes for it.
struct EventMemberReader: JSONMemberReader {
    var members = EventMembers()
    /// The batch's side bytes (`EventText`), shared by its events.
    var side = EventText.sidePrefix
    /// Where the last `props` member lies in the body, as sent.
    var propsSent: Range<Int>?

    /// Ready for the next event of the batch (the side bytes kept).
    mutating func reset() {
        members = EventMembers()
        propsSent = nil
    }

    @inline(__always)  // into `JSONParser.parseMembers`: it reads every member of every event
    mutating func member(_ key: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError) {
        guard let field = EventField(key, in: parser.bytes) else {
            _ = try parser.parseValue()
            return
        }
        guard parser.pos < parser.bytes.count else {
            _ = try parser.parseValue()  // throws the parser's error for a missing value
            return
        }
        switch parser.bytes[parser.pos] {
        case UInt8(ascii: "\""):
            members.set(field, .text(try parser.parseText(side: &side)))
        case UInt8(ascii: "{") where field == .props:
            let start = parser.pos
            parser.canonical = true
            var props = PropsReader()
            try parser.parseMembers(into: &props)
            propsSent = start..<parser.pos
            if parser.canonical && props.unique {
                members.setWrittenProps(EventText(body: start..<parser.pos), fault: props.fault)
            } else {
                // Not as the writer writes it: read again as a value, checked and written as on the generic path.
                parser.pos = start
                members.set(.props, value: try parser.parseValue())
            }
        default:
            let start = parser.pos
            let value = try parser.parseValue()
            if field == .props { propsSent = start..<parser.pos }
            members.set(field, value: value)
        }
    }
}

/// Scans a `props` object from the bytes (the parser at its `{`, `canonical` set) without
/// making a value of it: each member's value goes through the props rule
/// (`EventMembers.checkPropsMember`) as it is read, the first refusal kept, and its keys are
/// compared for repeats (up to 16 keys; more count as a repeat, so the generic path reads them).
struct PropsReader: JSONMemberReader {
    /// The first member the props rule refused.
    var fault: EventValidationError?
    /// No key seen twice (only known while the text is as the writer writes it).
    var unique = true
    private var keys = InlineArray<16, Range<Int>>(repeating: 0..<0)
    private var keyCount = 0
    /// Strings with an escape, unescaped only to be dropped (the text is then not the writer's).
    private var scratch: [UInt8] = []

    mutating func member(_ key: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError) {
        if parser.canonical && unique {
            // No escape and no space so far: the key's bytes lie between its quotes, just before `:`.
            let range = (keyStart + 1)..<(parser.pos - 2)
            let name = UnsafeBufferPointer(rebasing: parser.bytes[range])
            var i = 0
            while i < keyCount {
                if ByteWord.same(UnsafeBufferPointer(rebasing: parser.bytes[keys[i]]), name) { unique = false }
                i += 1
            }
            if keyCount < 16 {
                keys[keyCount] = range
                keyCount += 1
            } else {
                unique = false
            }
        }
        let value: PropsValue
        if parser.pos < parser.bytes.count, parser.bytes[parser.pos] == UInt8(ascii: "\"") {
            _ = try parser.parseStringBytes(unescapingInto: &scratch)
            scratch.removeAll(keepingCapacity: true)
            value = .scalar
        } else {
            value = PropsValue(try parser.parseValue())
        }
        guard fault == nil else { return }
        do throws(EventValidationError) {
            try EventMembers.checkPropsMember(key: parser.string(key), value)
        } catch {
            fault = error
        }
    }
}

/// What the props rule knows of a member's value.
enum PropsValue {
    case scalar
    case nonFiniteNumber
    case nonScalar(JSONValue.Kind)

    init(_ value: JSONValue) {
        switch value {
        case .array, .object: self = .nonScalar(value.kind)
        case .double(let d) where !d.isFinite: self = .nonFiniteNumber
        default: self = .scalar
        }
    }
}

extension JSONParser {
    /// Reads a string literal as an event's text: a span of the body, or unescaped into `side`.
    @inline(__always)
    mutating func parseText(side: inout [UInt8]) throws(JSONParseError) -> EventText {
        switch try parseStringBytes(unescapingInto: &side) {
        case .inPlace(let range, _): return EventText(body: range)
        case .unescaped(let range): return EventText(side: range)
        }
    }
}
