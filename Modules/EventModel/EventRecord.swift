/// Where one text of a validated event lies: `count` UTF-8 bytes of its batch's body (the
/// frame's bytes, for a string sent without an escape) or of the batch's side bytes (a string
/// unescaped once, a `props` text written); read through `EventTexts`.
public struct EventText: Sendable, Hashable {
    /// From the body when ≥ 0; else from the side bytes at `~start`.
    let start: Int
    public let count: Int

    /// The bytes of the body in `range`.
    init(body range: Range<Int>) {
        start = range.lowerBound
        count = range.count
    }

    /// The side bytes in `range`.
    init(side range: Range<Int>) {
        start = ~range.lowerBound
        count = range.count
    }

    /// `{}`, the `props` text of an event sent without them: the side bytes always start with it.
    static let emptyObject = EventText(side: 0..<2)
    /// What the side bytes start with.
    static let sidePrefix: [UInt8] = Array("{}".utf8)
}

/// A valid event as its batch holds it (what `EventRecord(members:body:side:)`, the contract's
/// one validator, gives): each text an `EventText`, numbers as numbers, and `props` as the JSON
/// text to store (compact, keys in order: what `JSONValue.object(props).jsonText` gives). A
/// store binds the texts' bytes without making a `String` of any; `TrackEvent(_:texts:props:)`
/// makes the strings when something wants them.
public struct EventRecord: Sendable, Hashable {
    public var id: EventText
    public var ts: Int64
    public var type: EventType
    public var name: EventText
    public var page: EventText?
    public var path: EventText?
    public var viewId: EventText?
    public var session: EventText?
    public var user: EventText?
    public var device: EventText?
    public var duration: Int64?
    /// The text to store: the bytes as sent when they are what the writer writes, else written.
    public var props: EventText
}

/// The bytes an `EventList`'s records point into, for as long as `EventList.withRecords` runs.
public struct EventTexts {
    let body: UnsafeBufferPointer<UInt8>
    let side: UnsafeBufferPointer<UInt8>

    init(body: UnsafeBufferPointer<UInt8>, side: UnsafeBufferPointer<UInt8>) {
        self.body = body
        self.side = side
    }

    /// The UTF-8 bytes of `text`.
    public func bytes(_ text: EventText) -> UnsafeBufferPointer<UInt8> {
        text.start >= 0
            ? UnsafeBufferPointer(rebasing: body[text.start..<text.start + text.count])
            : UnsafeBufferPointer(rebasing: side[(~text.start)..<(~text.start + text.count)])
    }

    /// The bytes of `text`, nil for nil.
    public subscript(text: EventText?) -> UnsafeBufferPointer<UInt8>? {
        text.map(bytes)
    }

    /// Whether two texts (nil: none) are the same bytes.
    public func same(_ a: EventText?, _ b: EventText?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return ByteWord.same(bytes(a), bytes(b))
    }

    /// `text` as a `String`.
    public func string(_ text: EventText) -> String { String(decoding: bytes(text), as: UTF8.self) }

    public func string(_ text: EventText?) -> String? { text.map(string) }
}

/// One event of a batch as a store takes it: valid, as a record, or refused, with its compact
/// JSON text and the reason (`ReceivedEvent.rejected`).
public enum RecordedEvent: Sendable, Hashable {
    case valid(EventRecord)
    case rejected(raw: String, reason: String)
}

extension TrackEvent {
    /// The event a record holds, its strings made from `texts`; `props` as validated (the
    /// record keeps only their text to store).
    init(_ record: EventRecord, texts: EventTexts, props: JSONObject) {
        self.init(
            id: texts.string(record.id), ts: record.ts, type: record.type, name: texts.string(record.name),
            page: texts.string(record.page), path: texts.string(record.path), viewId: texts.string(record.viewId),
            session: texts.string(record.session), user: texts.string(record.user), device: texts.string(record.device),
            duration: record.duration, props: props)
    }
}
