/// One tracked event, as it travels from the hooks through reporters to the collector (docs/wire.md §3).
/// Its optional fields are spelled `Optional<…>`: a `T?` stored `var` gets an implicit `= nil`,
/// and with one the initializer builds the event in a temporary and copies it out (Swift 6.3, -O),
/// on every tracked interaction.
public struct TrackEvent: Sendable, Hashable {
    /// Unique per app key; the collector drops repeats.
    public var id: String
    /// Milliseconds since the Unix epoch; `init(json:)` takes only `EventTime.range`.
    public var ts: Int64
    public var type: EventType
    /// The event code (`Controller#Target#Action`) or a configured event id.
    public var name: String
    public var page: Optional<String>
    public var path: Optional<String>
    public var viewId: Optional<String>
    public var session: Optional<String>
    /// The signed-in user the app named, at most 128 bytes.
    public var user: Optional<String>
    /// The agent's anonymous install id, at most 128 bytes.
    public var device: Optional<String>
    /// Milliseconds, e.g. dwell time on `page_leave`; `init(json:)` takes only `EventTime.durations`.
    public var duration: Optional<Int64>
    /// String keys, JSON scalar values.
    public var props: JSONObject

    public init(
        id: String, ts: Int64, type: EventType, name: String, page: String? = nil, path: String? = nil,
        viewId: String? = nil, session: String? = nil, user: String? = nil, device: String? = nil, duration: Int64? = nil,
        props: JSONObject = JSONObject()
    ) {
        self.id = id
        self.ts = ts
        self.type = type
        self.name = name
        self.page = page
        self.path = path
        self.viewId = viewId
        self.session = session
        self.user = user
        self.device = device
        self.duration = duration
        self.props = props
    }

    /// The wire form: fields in the table's order, optional ones only when present.
    public var json: JSONValue {
        var o = JSONObject()
        o["id"] = .string(id)
        o["ts"] = .int(ts)
        o["type"] = .string(type.rawValue)
        o["name"] = .string(name)
        if let page { o["page"] = .string(page) }
        if let path { o["path"] = .string(path) }
        if let viewId { o["viewId"] = .string(viewId) }
        if let session { o["session"] = .string(session) }
        if let user { o["user"] = .string(user) }
        if let device { o["device"] = .string(device) }
        if let duration { o["duration"] = .int(duration) }
        if !props.isEmpty { o["props"] = .object(props) }
        return .object(o)
    }

    /// Reads and validates an event from its wire form; the error names the field at fault.
    public init(json: JSONValue) throws(EventValidationError) {
        guard case .object(let o) = json else {
            throw EventValidationError(field: nil, reason: "an event must be a JSON object, found \(json.kindDescription)")
        }
        var side = EventText.sidePrefix
        let members = EventMembers(o, side: &side)
        let noBody = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        let record = try EventRecord(members: members, body: noBody, side: &side)
        self = side.withUnsafeBufferPointer { side in
            TrackEvent(record, texts: EventTexts(body: noBody, side: side), props: o["props"]?.objectValue ?? JSONObject())
        }
    }
}

extension EventRecord {
    /// Validates an event from the members its wire form names, however they were read (from a
    /// `JSONObject`, or straight from the bytes by `EventMemberReader`): the contract's one
    /// validator. Fields are checked one by one in a fixed order (id, ts, type, name first), so
    /// the first at fault is named. The texts lie in `body` or `side`; a `props` text to write
    /// is appended to `side`.
    init(members fields: borrowing EventMembers, body: UnsafeBufferPointer<UInt8>, side: inout [UInt8]) throws(EventValidationError) {
        id = try fields.requiredText(.id, bytes: 1...128)
        ts = try fields.ts()
        type = try side.withUnsafeBufferPointer { (side) throws(EventValidationError) in
            try fields.type(EventTexts(body: body, side: side))
        }
        name = try fields.requiredText(.name, bytes: 1...256)
        viewId = try side.withUnsafeBufferPointer { (side) throws(EventValidationError) in
            try fields.viewId(EventTexts(body: body, side: side))
        }
        user = try fields.identity(.user)
        device = try fields.identity(.device)
        duration = try fields.duration()
        props = try fields.props(writingTo: &side)
        page = try fields.text(.page)
        path = try fields.text(.path)
        session = try fields.text(.session)
    }
}

/// The members of an event's wire form, each read and checked against docs/wire.md §3.
extension EventMembers {
    /// An optional string member.
    @inline(__always)
    fileprivate func text(_ key: EventField) throws(EventValidationError) -> EventText? {
        guard let v = self[key] else { return nil }
        guard case .text(let s) = v else {
            throw EventValidationError(field: key.name, reason: "must be a string, found \(v.kind)")
        }
        return s
    }

    @inline(__always)
    fileprivate func requiredText(_ key: EventField) throws(EventValidationError) -> EventText {
        guard let s = try text(key) else { throw EventValidationError(field: key.name, reason: "is required") }
        return s
    }

    /// An optional integer member.
    @inline(__always)
    fileprivate func integer(_ key: EventField) throws(EventValidationError) -> Int64? {
        guard let v = self[key] else { return nil }
        guard case .int(let i) = v else {
            throw EventValidationError(field: key.name, reason: "must be an integer, found \(v.kind)")
        }
        return i
    }

    /// A required string member of `allowed` UTF-8 bytes (`id`, `name`).
    @inline(__always)
    fileprivate func requiredText(_ key: EventField, bytes allowed: ClosedRange<Int>) throws(EventValidationError) -> EventText {
        let text = try requiredText(key)
        guard allowed.contains(text.count) else {
            throw EventValidationError(
                field: key.name, reason: "must be \(allowed.lowerBound) to \(allowed.upperBound) bytes, found \(text.count)")
        }
        return text
    }

    @inline(__always)
    fileprivate func ts() throws(EventValidationError) -> Int64 {
        guard let ts = try integer(.ts) else { throw EventValidationError(field: "ts", reason: "is required") }
        guard EventTime.range.contains(ts) else {
            throw EventValidationError(
                field: "ts",
                reason: "must be from 0 (1970-01-01T00:00:00Z) to \(EventTime.latest) (9999-12-31T23:59:59.999Z) ms since the epoch, found \(ts)")
        }
        return ts
    }

    @inline(__always)
    fileprivate func type(_ texts: EventTexts) throws(EventValidationError) -> EventType {
        let text = texts.bytes(try requiredText(.type))
        guard let type = EventType(utf8: text) else {
            throw EventValidationError(field: "type", reason: "unknown event type \"\(String(decoding: text, as: UTF8.self))\"")
        }
        return type
    }

    @inline(__always)
    fileprivate func viewId(_ texts: EventTexts) throws(EventValidationError) -> EventText? {
        guard let viewId = try text(.viewId) else { return nil }
        let ok = viewId.count == 32 && texts.bytes(viewId).allSatisfy { b in
            (0x30...0x39).contains(b) || (0x61...0x66).contains(b) || (0x41...0x46).contains(b)
        }
        guard ok else { throw EventValidationError(field: "viewId", reason: "must be 32 hexadecimal digits") }
        return viewId
    }

    /// `user` or `device`: a string of at most 128 bytes.
    @inline(__always)
    fileprivate func identity(_ key: EventField) throws(EventValidationError) -> EventText? {
        guard let s = try text(key) else { return nil }
        guard s.count <= 128 else { throw EventValidationError(field: key.name, reason: "must be at most 128 bytes, found \(s.count)") }
        return s
    }

    @inline(__always)
    fileprivate func duration() throws(EventValidationError) -> Int64? {
        let duration = try integer(.duration)
        if let duration, !EventTime.durations.contains(duration) {
            throw EventValidationError(field: "duration", reason: "must be from 0 to \(EventTime.longestDuration) ms, found \(duration)")
        }
        return duration
    }

    /// `props`: an object of scalars, each number finite; its text to store, written to `side`
    /// unless it was read as the writer writes it.
    @inline(__always)
    fileprivate func props(writingTo side: inout [UInt8]) throws(EventValidationError) -> EventText {
        guard let p = self[.props] else { return EventText.emptyObject }
        switch p {
        case .writtenObject(let text):
            if let propsFault { throw propsFault }
            return text
        case .other(.object):
            guard let props = propsObject else { preconditionFailure("an object read as a value is kept") }
            for m in props { try Self.checkPropsMember(key: m.key, PropsValue(m.value)) }
            let start = side.count
            JSONValue.object(props).write(to: &side)
            return EventText(side: start..<side.count)
        default:
            throw EventValidationError(field: "props", reason: "must be an object, found \(p.kind)")
        }
    }

    /// The props rule for one member (`props.KEY`), whichever way the object was read.
    static func checkPropsMember(key: @autoclosure () -> String, _ value: PropsValue) throws(EventValidationError) {
        switch value {
        case .scalar: return
        case .nonScalar(let kind):
            throw EventValidationError(field: "props.\(key())", reason: "must be a scalar, found \(kind)")
        case .nonFiniteNumber:
            // A number beyond a double (1e999) parses as infinity, which JSON cannot write back:
            // refused, so nothing is stored as something other than what was sent.
            throw EventValidationError(
                field: "props.\(key())", reason: "is a number too large for a 64-bit float; send it as a string")
        }
    }
}

/// Why an event breaks the wire contract; `description` is the reason the collector keeps.
public struct EventValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field at fault, or nil when the event as a whole is wrong.
    public var field: String?
    public var reason: String

    public init(field: String?, reason: String) {
        self.field = field
        self.reason = reason
    }

    public var description: String {
        if let field { return "\(field) \(reason)" }
        return reason
    }
}
