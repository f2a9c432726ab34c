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
        func string(_ key: String, required: Bool) throws(EventValidationError) -> String? {
            guard let v = o[key] else {
                if required { throw EventValidationError(field: key, reason: "is required") }
                return nil
            }
            guard case .string(let s) = v else {
                throw EventValidationError(field: key, reason: "must be a string, found \(v.kindDescription)")
            }
            return s
        }
        func integer(_ key: String, required: Bool) throws(EventValidationError) -> Int64? {
            guard let v = o[key] else {
                if required { throw EventValidationError(field: key, reason: "is required") }
                return nil
            }
            guard case .int(let i) = v else {
                throw EventValidationError(field: key, reason: "must be an integer, found \(v.kindDescription)")
            }
            return i
        }
        let id = try string("id", required: true)!
        let idBytes = id.utf8.count
        guard (1...128).contains(idBytes) else {
            throw EventValidationError(field: "id", reason: "must be 1 to 128 bytes, found \(idBytes)")
        }
        let ts = try integer("ts", required: true)!
        guard EventTime.range.contains(ts) else {
            throw EventValidationError(
                field: "ts",
                reason: "must be from 0 (1970-01-01T00:00:00Z) to \(EventTime.latest) (9999-12-31T23:59:59.999Z) ms since the epoch, found \(ts)")
        }
        let typeText = try string("type", required: true)!
        guard let type = EventType(rawValue: typeText) else {
            throw EventValidationError(field: "type", reason: "unknown event type \"\(typeText)\"")
        }
        let name = try string("name", required: true)!
        let nameBytes = name.utf8.count
        guard (1...256).contains(nameBytes) else {
            throw EventValidationError(field: "name", reason: "must be 1 to 256 bytes, found \(nameBytes)")
        }
        let viewId = try string("viewId", required: false)
        if let viewId {
            let ok = viewId.utf8.count == 32 && viewId.utf8.allSatisfy { b in
                (0x30...0x39).contains(b) || (0x61...0x66).contains(b) || (0x41...0x46).contains(b)
            }
            guard ok else { throw EventValidationError(field: "viewId", reason: "must be 32 hexadecimal digits") }
        }
        func identity(_ key: String) throws(EventValidationError) -> String? {
            guard let s = try string(key, required: false) else { return nil }
            let bytes = s.utf8.count
            guard bytes <= 128 else { throw EventValidationError(field: key, reason: "must be at most 128 bytes, found \(bytes)") }
            return s
        }
        let user = try identity("user")
        let device = try identity("device")
        let duration = try integer("duration", required: false)
        if let duration, !EventTime.durations.contains(duration) {
            throw EventValidationError(field: "duration", reason: "must be from 0 to \(EventTime.longestDuration) ms, found \(duration)")
        }
        var props = JSONObject()
        if let p = o["props"] {
            guard case .object(let po) = p else {
                throw EventValidationError(field: "props", reason: "must be an object, found \(p.kindDescription)")
            }
            for m in po {
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
            props = po
        }
        self.init(
            id: id, ts: ts, type: type, name: name, page: try string("page", required: false),
            path: try string("path", required: false), viewId: viewId, session: try string("session", required: false),
            user: user, device: device, duration: duration, props: props)
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
