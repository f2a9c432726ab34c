/// One tracked event, as it travels from the hooks through reporters to the collector (docs/wire.md §3).
public struct TrackEvent: Sendable, Hashable {
    /// Unique per app key; the collector drops repeats.
    public var id: String
    /// Milliseconds since the Unix epoch; `init(json:)` takes only `EventTime.range`.
    public var ts: Int64
    public var type: EventType
    /// The event code (`Controller#Target#Action`) or a configured event id.
    public var name: String
    public var page: String?
    public var path: String?
    public var viewId: String?
    public var session: String?
    /// The signed-in user the app named, at most 128 bytes.
    public var user: String?
    /// The agent's anonymous install id, at most 128 bytes.
    public var device: String?
    /// Milliseconds, e.g. dwell time on `page_leave`; `init(json:)` takes only `EventTime.durations`.
    public var duration: Int64?
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
        try self.init(members: EventMembers(o))
    }

    /// Validates an event from the members its wire form names, however they were read (from a
    /// `JSONObject`, or straight from the bytes by `EventMemberReader`): the contract's one
    /// validator. Fields are checked one by one in a fixed order (id, ts, type, name first), so
    /// the first at fault is named.
    init(members fields: borrowing EventMembers) throws(EventValidationError) {
        let id = try fields.requiredString(.id, bytes: 1...128)
        let ts = try fields.ts()
        let type = try fields.type()
        let name = try fields.requiredString(.name, bytes: 1...256)
        let viewId = try fields.viewId()
        let user = try fields.identity(.user)
        let device = try fields.identity(.device)
        let duration = try fields.duration()
        let props = try fields.props()
        self.init(
            id: id, ts: ts, type: type, name: name, page: try fields.string(.page), path: try fields.string(.path), viewId: viewId,
            session: try fields.string(.session), user: user, device: device, duration: duration, props: props)
    }
}

/// The members of an event's wire form, each read and checked against docs/wire.md §3.
extension EventMembers {
    /// An optional string member.
    fileprivate func string(_ key: EventField) throws(EventValidationError) -> String? {
        guard let v = self[key] else { return nil }
        guard case .string(let s) = v else {
            throw EventValidationError(field: key.name, reason: "must be a string, found \(v.kindDescription)")
        }
        return s
    }

    fileprivate func requiredString(_ key: EventField) throws(EventValidationError) -> String {
        guard let s = try string(key) else { throw EventValidationError(field: key.name, reason: "is required") }
        return s
    }

    /// An optional integer member.
    fileprivate func integer(_ key: EventField) throws(EventValidationError) -> Int64? {
        guard let v = self[key] else { return nil }
        guard case .int(let i) = v else {
            throw EventValidationError(field: key.name, reason: "must be an integer, found \(v.kindDescription)")
        }
        return i
    }

    /// A required string member of `allowed` UTF-8 bytes (`id`, `name`).
    fileprivate func requiredString(_ key: EventField, bytes allowed: ClosedRange<Int>) throws(EventValidationError) -> String {
        let text = try requiredString(key)
        let bytes = text.utf8.count
        guard allowed.contains(bytes) else {
            throw EventValidationError(field: key.name, reason: "must be \(allowed.lowerBound) to \(allowed.upperBound) bytes, found \(bytes)")
        }
        return text
    }

    fileprivate func ts() throws(EventValidationError) -> Int64 {
        guard let ts = try integer(.ts) else { throw EventValidationError(field: "ts", reason: "is required") }
        guard EventTime.range.contains(ts) else {
            throw EventValidationError(
                field: "ts",
                reason: "must be from 0 (1970-01-01T00:00:00Z) to \(EventTime.latest) (9999-12-31T23:59:59.999Z) ms since the epoch, found \(ts)")
        }
        return ts
    }

    fileprivate func type() throws(EventValidationError) -> EventType {
        let text = try requiredString(.type)
        guard let type = EventType(rawValue: text) else {
            throw EventValidationError(field: "type", reason: "unknown event type \"\(text)\"")
        }
        return type
    }

    fileprivate func viewId() throws(EventValidationError) -> String? {
        guard let viewId = try string(.viewId) else { return nil }
        let ok = viewId.utf8.count == 32 && viewId.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x61...0x66).contains(b) || (0x41...0x46).contains(b)
        }
        guard ok else { throw EventValidationError(field: "viewId", reason: "must be 32 hexadecimal digits") }
        return viewId
    }

    /// `user` or `device`: a string of at most 128 bytes.
    fileprivate func identity(_ key: EventField) throws(EventValidationError) -> String? {
        guard let s = try string(key) else { return nil }
        let bytes = s.utf8.count
        guard bytes <= 128 else { throw EventValidationError(field: key.name, reason: "must be at most 128 bytes, found \(bytes)") }
        return s
    }

    fileprivate func duration() throws(EventValidationError) -> Int64? {
        let duration = try integer(.duration)
        if let duration, !EventTime.durations.contains(duration) {
            throw EventValidationError(field: "duration", reason: "must be from 0 to \(EventTime.longestDuration) ms, found \(duration)")
        }
        return duration
    }

    /// `props`: an object of scalars, each number finite.
    fileprivate func props() throws(EventValidationError) -> JSONObject {
        guard let p = self[.props] else { return JSONObject() }
        guard case .object(let props) = p else {
            throw EventValidationError(field: "props", reason: "must be an object, found \(p.kindDescription)")
        }
        for m in props {
            guard m.value.isScalar else {
                throw EventValidationError(field: "props.\(m.key)", reason: "must be a scalar, found \(m.value.kindDescription)")
            }
            // A number beyond a double (1e999) parses as infinity, which JSON cannot write back:
            // refused, so nothing is stored as something other than what was sent.
            if case .double(let d) = m.value, !d.isFinite {
                throw EventValidationError(
                    field: "props.\(m.key)", reason: "is a number too large for a 64-bit float; send it as a string")
            }
        }
        return props
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
