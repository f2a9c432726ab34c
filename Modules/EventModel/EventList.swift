/// The events of one `EVENTS` batch: generic values (as a client or a test builds them), or read
/// straight from the frame's bytes by `EventList.parseBody`, each validated as it was read
/// without building the generic tree first, into records of spans of those bytes
/// (`EventRecord`). Both give the same `received` events and the same `withRecords`.
public struct EventList: Sendable, Hashable {
    private enum Source: Sendable {
        case values([JSONValue])
        /// The body's bytes, each event's span in them, the events as validated, the span of
        /// each one's `props` as sent (for `received`), and the side bytes the records point into.
        case bytes(ArraySlice<UInt8>, spans: [Range<Int>], events: [RecordedEvent], propsSent: [Range<Int>?], side: [UInt8])
    }

    private let source: Source

    public init(_ values: [JSONValue]) { source = .values(values) }

    public var count: Int {
        switch source {
        case .values(let values): return values.count
        case .bytes(_, let spans, _, _, _): return spans.count
        }
    }

    /// Each event validated: a `TrackEvent` with the `props` text to store, or the reason it is
    /// refused (read from the bytes, the strings are made here).
    public var received: [ReceivedEvent] {
        switch source {
        case .values(let values): return values.map(ReceivedEvent.init(json:))
        case .bytes(let body, _, let events, let propsSent, let side):
            return Self.withTexts(body, side) { texts in
                zip(events, propsSent).map { event, propsSent in
                    switch event {
                    case .valid(let record):
                        let props = propsSent.map { Self.value(of: texts.body, span: $0).objectValue ?? JSONObject() } ?? JSONObject()
                        return .valid(TrackEvent(record, texts: texts, props: props), props: texts.string(record.props))
                    case .rejected(let raw, let reason):
                        return .rejected(raw: raw, reason: reason)
                    }
                }
            }
        }
    }

    /// Calls `body` with each event as a store takes it (valid ones as records, without a
    /// `String` per field when the events were read from the bytes) and the bytes their texts
    /// lie in, valid only during the call.
    public func withRecords<R>(_ body: ([RecordedEvent], EventTexts) throws -> R) rethrows -> R {
        switch source {
        case .values(let values):
            var side = EventText.sidePrefix
            let events = values.map { value -> RecordedEvent in
                do throws(EventValidationError) {
                    guard case .object(let o) = value else {
                        let refusal = Self.refusal(of: value)
                        return .rejected(raw: refusal.raw, reason: refusal.reason)
                    }
                    let members = EventMembers(o, side: &side)
                    return .valid(try EventRecord(members: members, body: Self.noBytes, side: &side))
                } catch {
                    return .rejected(raw: value.jsonText, reason: error.description)
                }
            }
            return try Self.withTexts(Self.noBody, side) { try body(events, $0) }
        case .bytes(let bytes, _, let events, _, let side):
            return try Self.withTexts(bytes, side) { try body(events, $0) }
        }
    }

    private static let noBody: ArraySlice<UInt8> = []
    private static var noBytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: nil, count: 0) }

    private static func withTexts<R>(_ body: ArraySlice<UInt8>, _ side: [UInt8], _ run: (EventTexts) throws -> R) rethrows -> R {
        try body.withUnsafeBufferPointer { body in
            try side.withUnsafeBufferPointer { side in try run(EventTexts(body: body, side: side)) }
        }
    }

    /// The text and reason of an event that is no object, as the generic path refuses it
    /// (`ReceivedEvent(json:)`).
    fileprivate static func refusal(of value: JSONValue) -> (raw: String, reason: String) {
        guard case .rejected(let raw, let reason) = ReceivedEvent(json: value) else {
            preconditionFailure("an event that is no object is refused")
        }
        return (raw, reason)
    }

    /// About how many bytes the list keeps in memory: its events' bytes (a frame's whole payload
    /// when read from one) and their records. What a store holding batches counts against its
    /// memory bounds, whatever the size of each event.
    public var heldBytes: Int {
        switch source {
        case .values(let values):
            return values.reduce(0) { $0 + Self.heldBytes(of: $1) }
        case .bytes(let body, let spans, let events, let propsSent, let side):
            let refusals = events.reduce(0) { total, event in
                guard case .rejected(let raw, let reason) = event else { return total }
                return total + raw.utf8.count + reason.utf8.count
            }
            return body.count + side.count + refusals + spans.count * MemoryLayout<Range<Int>>.stride
                + events.count * MemoryLayout<RecordedEvent>.stride + propsSent.count * MemoryLayout<Range<Int>?>.stride
        }
    }

    /// About how many bytes `value` keeps in memory: its node and the UTF-8 of its strings and
    /// keys, read where they are (nothing is written out to count them).
    private static func heldBytes(of value: JSONValue) -> Int {
        let node = MemoryLayout<JSONValue>.stride
        switch value {
        case .null, .bool, .int, .double: return node
        case .string(let s): return node + s.utf8.count
        case .array(let items): return node + items.reduce(0) { $0 + heldBytes(of: $1) }
        case .object(let o): return node + o.members.reduce(0) { $0 + $1.key.utf8.count + heldBytes(of: $1.value) }
        }
    }

    /// The events as generic values (parsed again from their bytes when they were read straight).
    public var values: [JSONValue] {
        switch source {
        case .values(let values): return values
        case .bytes(let body, let spans, _, _, _):
            return body.withUnsafeBufferPointer { buffer in spans.map { Self.value(of: buffer, span: $0) } }
        }
    }

    /// The events as one JSON array, each as it arrived: its bytes when it was read straight
    /// from a frame, else its generic value's text. What a store's ingest log keeps of a batch,
    /// read back by `init(arrayText:)` into the same events.
    public var arrayText: [UInt8] {
        switch source {
        case .values(let values):
            return Array(JSONValue.array(values).jsonText.utf8)
        case .bytes(let body, let spans, _, _, _):
            // Spans count from the body's first byte, as its buffer does (`withTexts`), not
            // from the slice's indices: a frame's body is a slice that starts after the verb.
            return body.withUnsafeBufferPointer { body in
                var text: [UInt8] = [UInt8(ascii: "[")]
                text.reserveCapacity(spans.reduce(2) { $0 + $1.count + 1 })
                for (i, span) in spans.enumerated() {
                    if i > 0 { text.append(UInt8(ascii: ",")) }
                    text.append(contentsOf: UnsafeBufferPointer(rebasing: body[span]))
                }
                text.append(UInt8(ascii: "]"))
                return text
            }
        }
    }

    /// The events of an array text (`arrayText`), read and validated as an `EVENTS` body's are
    /// (`parseBody`): the same records and refusals as the list that wrote it.
    public init(arrayText: [UInt8]) throws(JSONParseError) {
        let document = Array("{\"events\":".utf8) + arrayText + [UInt8(ascii: "}")]
        guard let events = try Self.parseBody(document[...], eventsMember: "events").events else {
            throw JSONParseError(offset: 0, line: 1, column: 1, reason: "an ingest log record's events are no JSON array")
        }
        self = events
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
            let events = reader.events.map {
                EventList(source: .bytes(bytes, spans: $0.spans, events: $0.events, propsSent: $0.propsSent, side: $0.members.side))
            }
            return (.object(reader.object.object), events)
        }
    }

    private init(source: Source) { self.source = source }

    /// The members of an `EVENTS` body: the events array read event by event, the rest as values.
    private struct BodyReader: JSONMemberReader {
        let eventsKey: String
        var object = ObjectBuilder()
        var events: EventsReader?

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
            events = reader
            object.add(key, .array([]))
        }
    }

    /// The elements of an `events` array, each validated as it is read, with its span.
    private struct EventsReader: JSONElementReader {
        var spans: [Range<Int>] = []
        var events: [RecordedEvent] = []
        var propsSent: [Range<Int>?] = []
        /// Reads each event's members; its side bytes are the batch's.
        var members = EventMemberReader()

        mutating func element(_ index: Int, parser: inout JSONParser) throws(JSONParseError) {
            let start = parser.pos
            events.append(try event(&parser))
            propsSent.append(events.last.flatMap { if case .valid = $0 { members.propsSent } else { nil } })
            spans.append(start..<parser.pos)
            if index == 0 {
                // Room for a quarter more events than the rest of the body holds if they are as long
                // as the first (taken as at least 128 bytes, so a short first event reserves little):
                // no array grown and copied again and again for a large batch.
                let more = (parser.bytes.count - parser.pos) / max(parser.pos - start, 128) * 5 / 4 + 1
                events.reserveCapacity(1 + more)
                propsSent.reserveCapacity(1 + more)
                spans.reserveCapacity(1 + more)
            }
        }

        /// One event: an object read member by member into the validator; anything else
        /// (refused) as a generic value.
        mutating func event(_ parser: inout JSONParser) throws(JSONParseError) -> RecordedEvent {
            let start = parser.pos
            guard start < parser.bytes.count, parser.bytes[start] == UInt8(ascii: "{") else {
                let refusal = EventList.refusal(of: try parser.parseValue())
                return .rejected(raw: refusal.raw, reason: refusal.reason)
            }
            members.reset()
            try parser.parseMembers(into: &members)
            do throws(EventValidationError) {
                let record = try EventRecord(members: members.members, body: parser.bytes, side: &members.side)
                return .valid(record)
            } catch {
                // Refused events are few: their text is the generic value's, as for any refused event.
                return .rejected(raw: EventList.value(of: parser.bytes, span: start..<parser.pos).jsonText, reason: error.description)
            }
        }
    }
}
