public import EventModel

/// The request codec both ends share (docs/wire.md §2): the server decodes a request's body
/// with `init(verb:body:)`, the client encodes it with `frame` (or, for `EVENTS` over events
/// already in wire JSON, `eventsPayload`), so a request is spelled in one place.
extension ATLPRequest {
    /// Every verb a client sends, in the order the spec lists them (for `unknown-verb` messages).
    public static let clientVerbs = ["HELLO", "EVENTS", "CONFIG", "PUBLISH", "SNAPSHOT", "PING", "BYE"]
    /// The longest `EVENTS` batch id as a string, in UTF-8 bytes.
    public static let maxBatchIDBytes = 128

    /// Decodes the body of an `EVENTS`, `CONFIG`, `PUBLISH` or `SNAPSHOT` request. Throws
    /// `bad-request` naming the member at fault and what it must be, or `unknown-verb` for a
    /// verb that is not a request of ATLP/1 (`HELLO`, `PING` and `BYE` are the session's, not these).
    public init(verb: String, body: JSONObject) throws(ATLPError) {
        switch verb {
        case "EVENTS": self = try Self.events(body)
        case "CONFIG": self = .config(body)
        case "PUBLISH": self = try Self.publish(body)
        case "SNAPSHOT": self = .snapshot(try SnapshotUpload(body: body))
        default:
            throw ATLPError(
                .unknownVerb, "\(verb) is not a request of ATLP/1; requests are \(Self.clientVerbs.joined(separator: ", "))")
        }
    }

    /// `EVENTS {"batch":B,"sentAt":T,"events":[...]}`: `batch` a string of 1 to 128 bytes or an
    /// integer, `events` an array, `sentAt` an integer when present.
    private static func events(_ body: JSONObject) throws(ATLPError) -> ATLPRequest {
        guard let batch = body["batch"] else {
            throw ATLPError(.badRequest, "EVENTS needs \"batch\": a string or integer the ACK echoes")
        }
        switch batch {
        case .string(let s) where !s.isEmpty && s.utf8.count <= maxBatchIDBytes: break
        case .int: break
        default:
            throw ATLPError(
                .badRequest, "EVENTS \"batch\" must be a string of 1 to 128 bytes or an integer, found \(batch.jsonText.prefix(40))")
        }
        guard let events = body["events"]?.arrayValue else {
            throw ATLPError(.badRequest, "EVENTS needs \"events\": an array of event objects")
        }
        var sentAt: Int64?
        if let t = body["sentAt"] {
            guard case .int(let ms) = t else {
                throw ATLPError(.badRequest, "EVENTS \"sentAt\" must be an integer (ms since the epoch), found \(t.kindDescription)")
            }
            sentAt = ms
        }
        return .events(batch: batch, events: events, sentAt: sentAt)
    }

    /// Decodes an `EVENTS` payload (verb and body) as `init(verb:body:)` does, with the same
    /// errors, but reads the events straight from the bytes, each validated as it is read
    /// (`EventList.parseBody`), not through the generic tree.
    package static func events(payload: [UInt8]) throws(ATLPError) -> IncomingEvents {
        let read = try ATLPFrame.body(of: payload, verb: "EVENTS") { (json) throws(JSONParseError) in
            try EventList.parseBody(json, eventsMember: "events")
        }
        guard case .events(let batch, let values, let sentAt) = try events(read?.object ?? JSONObject()) else {
            preconditionFailure("an EVENTS body decodes to an EVENTS request")
        }
        return IncomingEvents(batch: batch, events: read?.extra ?? EventList(values), sentAt: sentAt)
    }

    /// `PUBLISH {"rules":[...],"sampleRate":R}`: `rules` an array, `sampleRate` 0…1 when present.
    private static func publish(_ body: JSONObject) throws(ATLPError) -> ATLPRequest {
        guard let rules = body["rules"]?.arrayValue else {
            throw ATLPError(.badRequest, "PUBLISH needs \"rules\": an array of rules")
        }
        var sampleRate: Double?
        if let r = body["sampleRate"] {
            guard let rate = r.doubleValue, (0...1).contains(rate) else {
                throw ATLPError(.badRequest, "PUBLISH \"sampleRate\" must be a number from 0 to 1, found \(r.jsonText.prefix(40))")
            }
            sampleRate = rate
        }
        return .publish(rules: rules, sampleRate: sampleRate)
    }

    /// The request as a client sends it; members that are nil are left out.
    public var frame: ATLPFrame {
        switch self {
        case .events(let batch, let events, let sentAt):
            var body = JSONObject([("batch", batch)])
            if let sentAt { body["sentAt"] = .int(sentAt) }
            body["events"] = .array(events)
            return ATLPFrame(verb: verb, body: body)
        case .config(let body):
            return ATLPFrame(verb: verb, body: body)
        case .publish(let rules, let sampleRate):
            var body = JSONObject([("rules", .array(rules))])
            if let sampleRate { body["sampleRate"] = .double(sampleRate) }
            return ATLPFrame(verb: verb, body: body)
        case .snapshot(let upload):
            return upload.frame
        }
    }

    /// The payload of `EVENTS {"batch":B,"sentAt":T,"events":[...]}` around events already in wire
    /// JSON (each one JSON object, as a spool holds them), copied as they are: the same bytes
    /// `ATLPRequest.events(...).frame.payload` gives for those events, without re-encoding them.
    public static func eventsPayload(batch: String, sentAt: Int64?, encodedEvents: [ArraySlice<UInt8>]) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(encodedEvents.reduce(64 + batch.utf8.count) { $0 + $1.count + 1 })
        payload += "EVENTS {\"batch\":".utf8
        JSONValue.string(batch).write(to: &payload)
        if let sentAt {
            payload += ",\"sentAt\":".utf8
            payload += String(sentAt).utf8
        }
        payload += ",\"events\":[".utf8
        for (i, event) in encodedEvents.enumerated() {
            if i > 0 { payload.append(UInt8(ascii: ",")) }
            payload += event
        }
        payload += "]}".utf8
        return payload
    }
}
