/// The events of one `EVENTS` batch: generic values (as a client or a test builds them), or read
/// straight from the frame's bytes by `EventList.parseBody`, each validated as it was read
/// without building the generic tree first. Both give the same `received` events.
public struct EventList: Sendable, Hashable {
    private enum Source: Sendable {
        case values([JSONValue])
        /// The body's bytes, each event's span in them, and the events as validated.
        case bytes(ArraySlice<UInt8>, spans: [Range<Int>], received: [ReceivedEvent])
    }

    private let source: Source

    public init(_ values: [JSONValue]) { source = .values(values) }

    public var count: Int {
        switch source {
        case .values(let values): return values.count
        case .bytes(_, let spans, _): return spans.count
        }
    }

    /// Each event validated: a `TrackEvent` with the `props` text to store, or the reason it is refused.
    public var received: [ReceivedEvent] {
        switch source {
        case .values(let values): return values.map(ReceivedEvent.init(json:))
        case .bytes(_, _, let received): return received
        }
    }

    /// The events as generic values (parsed again from their bytes when they were read straight).
    public var values: [JSONValue] {
        switch source {
        case .values(let values): return values
        case .bytes(let body, let spans, _):
            return body.withUnsafeBufferPointer { buffer in spans.map { Self.value(of: buffer, span: $0) } }
        }
    }

    public static func == (lhs: EventList, rhs: EventList) -> Bool { lhs.values == rhs.values }
    public func hash(into hasher: inout Hasher) { hasher.combine(values) }

    /// The generic value of one event's bytes, which parsed once already.
    private static func value(of body: UnsafeBufferPointer<UInt8>, span: Range<Int>) -> JSONValue {
        var parser = JSONParser(UnsafeBufferPointer(rebasing: body[span]))
        do throws(JSONParseError) { return try parser.parseDocument() } catch {
            preconditionFailure("an event that parsed once does not parse again: \(error)")
        }
    }

    /// Parses a JSON document as `JSONValue.parse` does (the same value, the same errors), except
    /// that the top-level object's member `key`, when it is an array, is read as events: the
    /// returned value holds an empty array in its place and the events come back as the list.
    /// The list is nil when the document is no object or the member is missing or no array
    /// (then the value holds it as sent).
    public static func parseBody(
        _ bytes: ArraySlice<UInt8>, eventsMember key: String
    ) throws(JSONParseError) -> (value: JSONValue, events: EventList?) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> (value: JSONValue, events: EventList?) in
            var parser = JSONParser(buffer)
            parser.skipSpace()
            guard parser.pos < buffer.count, buffer[parser.pos] == UInt8(ascii: "{") else {
                parser.pos = 0
                return (try parser.parseDocument(), nil)
            }
            var reader = BodyReader(eventsKey: key)
            try parser.parseMembers(into: &reader)
            parser.skipSpace()
            if parser.pos < buffer.count { throw parser.error("unexpected text after the JSON value") }
            let events = reader.events.map { EventList(source: .bytes(bytes, spans: $0.spans, received: $0.received)) }
            return (.object(reader.object.object), events)
        }
    }

    private init(source: Source) { self.source = source }

    /// The members of an `EVENTS` body: the events array read event by event, the rest as values.
    private struct BodyReader: JSONMemberReader {
        let eventsKey: String
        var object = ObjectBuilder()
        var events: (spans: [Range<Int>], received: [ReceivedEvent])?

        mutating func member(_ token: JSONStringToken, at keyStart: Int, parser: inout JSONParser) throws(JSONParseError) {
            let key = parser.string(token)
            guard key == eventsKey, parser.pos < parser.bytes.count, parser.bytes[parser.pos] == UInt8(ascii: "[") else {
                // The last of a repeated name wins: a later non-array `events` replaces the list.
                if key == eventsKey { events = nil }
                object.add(key, try parser.parseValue())
                return
            }
            var reader = EventsReader()
            try parser.parseElements(into: &reader)
            events = (reader.spans, reader.received)
            object.add(key, .array([]))
        }
    }

    /// The elements of an `events` array, each validated as it is read, with its span.
    private struct EventsReader: JSONElementReader {
        var spans: [Range<Int>] = []
        var received: [ReceivedEvent] = []

        mutating func element(_ index: Int, parser: inout JSONParser) throws(JSONParseError) {
            let start = parser.pos
            received.append(try Self.event(&parser))
            spans.append(start..<parser.pos)
        }

        /// One event: an object read member by member into `TrackEvent`'s validator; anything
        /// else (refused) as a generic value.
        static func event(_ parser: inout JSONParser) throws(JSONParseError) -> ReceivedEvent {
            let start = parser.pos
            guard start < parser.bytes.count, parser.bytes[start] == UInt8(ascii: "{") else {
                return ReceivedEvent(json: try parser.parseValue())
            }
            var reader = EventMemberReader()
            try parser.parseMembers(into: &reader)
            do throws(EventValidationError) {
                return ReceivedEvent(valid: try TrackEvent(members: reader.members), props: reader.canonicalProps)
            } catch {
                // Refused events are few: their text is the generic value's, as for any refused event.
                return .rejected(raw: EventList.value(of: parser.bytes, span: start..<parser.pos).jsonText, reason: error.description)
            }
        }
    }
}
