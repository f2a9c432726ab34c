public import EventModel

/// One ATLP/1 frame: a verb (`A`–`Z`) and an optional JSON object body (docs/wire.md §1).
public struct ATLPFrame: Sendable, Hashable, CustomStringConvertible {
    /// The verb, e.g. `EVENTS`; only `A`–`Z`.
    public var verb: String
    /// The body; nil when the frame is the verb alone (we always send a body; see docs/wire.md).
    public var body: JSONObject?

    public init(verb: String, body: JSONObject? = JSONObject()) {
        self.verb = verb
        self.body = body
    }

    /// The payload bytes: verb, then one space and the compact JSON body when there is one.
    public var payload: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(verb.utf8.count + 64)
        out.append(contentsOf: verb.utf8)
        if let body {
            out.append(0x20)
            JSONValue.object(body).write(to: &out)
        }
        return out
    }

    /// The whole frame on the wire: `<length> <payload>`.
    public var encoded: [UInt8] { ATLPFrame.frame(payload: payload) }

    /// Wraps a payload in its length prefix.
    public static func frame(payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 12)
        out.append(contentsOf: String(payload.count).utf8)
        out.append(0x20)
        out.append(contentsOf: payload)
        return out
    }

    /// The member `key` of the body, if any.
    public subscript(key: String) -> JSONValue? { body?[key] }

    public var description: String {
        String(decoding: payload, as: UTF8.self)
    }
}

extension ATLPFrame {
    /// `ERR {"code":C,"message":M}`.
    public static func error(_ code: ATLPErrorCode, _ message: String) -> ATLPFrame {
        ATLPFrame(verb: "ERR", body: JSONObject([("code", .string(code.rawValue)), ("message", .string(message))]))
    }

    /// Decodes a payload (the bytes after the length prefix) into a frame, checking rule 1
    /// of docs/wire.md and the verb/body shape. The error says which ERR code answers it.
    public static func parse(payload: some Collection<UInt8>) throws(ATLPError) -> ATLPFrame {
        let bytes = Array(payload)
        let verb = try verb(of: bytes)
        return ATLPFrame(verb: verb, body: try body(of: bytes, verb: verb))
    }

    /// Checks the payload is one line of UTF-8 starting with a verb; returns the verb.
    package static func verb(of bytes: [UInt8]) throws(ATLPError) -> String {
        let (lineFeed, ascii) = scan(bytes)
        guard !lineFeed else {
            throw ATLPError(
                .badFrame, "the payload holds a line feed (LF); a payload is one line and JSON escapes its newlines")
        }
        guard ascii || (try? UTF8Span(validating: bytes.span)) != nil else {
            throw ATLPError(.badFrame, "the payload is not valid UTF-8")
        }
        let space = bytes.firstIndex(of: 0x20) ?? bytes.count
        let verbBytes = bytes[0..<space]
        guard !verbBytes.isEmpty, verbBytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            let shown = String(decoding: verbBytes.prefix(32), as: UTF8.self)
            throw ATLPError(.unknownVerb, "\"\(shown)\" is not a verb: a payload starts with capital letters A-Z")
        }
        return String(decoding: verbBytes, as: UTF8.self)
    }

    /// Whether `bytes` hold a line feed, and whether they are all ASCII (then valid UTF-8, with
    /// nothing more to check), read eight bytes at a time: an EVENTS payload of a hundred
    /// kilobytes is read once, with no copy, at a fraction of a byte-by-byte pass.
    static func scan(_ bytes: [UInt8]) -> (lineFeed: Bool, ascii: Bool) {
        bytes.withUnsafeBytes { raw -> (lineFeed: Bool, ascii: Bool) in
            var seen: UInt64 = 0
            var i = 0
            while i + 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if ByteWord.bytes(of: word, equalTo: 0x0A) != 0 { return (true, false) }
                seen |= word
                i += 8
            }
            while i < raw.count {
                if raw[i] == 0x0A { return (true, false) }
                seen |= UInt64(raw[i])
                i += 1
            }
            return (false, seen & ByteWord.tops == 0)
        }
    }

    /// The body after the verb: nil when the payload is the verb alone, else a JSON object.
    package static func body(of bytes: [UInt8], verb: String) throws(ATLPError) -> JSONObject? {
        try body(of: bytes, verb: verb) { (json) throws(JSONParseError) in (try JSONValue.parse(json), ()) }?.object
    }

    /// The body after the verb as `parse` reads it (with what else it read beside the value, as
    /// `EventList.parseBody` reads the events): nil when the payload is the verb alone.
    package static func body<Extra>(
        of bytes: [UInt8], verb: String, parse: (ArraySlice<UInt8>) throws(JSONParseError) -> (JSONValue, Extra)
    ) throws(ATLPError) -> (object: JSONObject, extra: Extra)? {
        let start = verb.utf8.count
        guard start < bytes.count else { return nil }
        let parsed: (JSONValue, Extra)
        do {
            parsed = try parse(bytes[(start + 1)...])
        } catch {
            throw ATLPError(.badJSON, "the \(verb) body is not valid JSON: \(error.description)")
        }
        guard case .object(let object) = parsed.0 else {
            throw ATLPError(.badJSON, "the \(verb) body must be a JSON object, found \(parsed.0.kindDescription)")
        }
        return (object, parsed.1)
    }
}
