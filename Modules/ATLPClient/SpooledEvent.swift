import EventModel

/// What the collector takes whole: an event line must be UTF-8 and one JSON object, or the
/// collector refuses its whole batch (`bad-frame`, `bad-json`). Checked in full (parsed) when an
/// event is spooled from outside JSON, and quickly (UTF-8, an object's braces) when a batch is
/// read back from disk before each send, where damage is rare and parsing every event again would
/// halve the shipper's speed; what the quick check misses, the collector refuses and the
/// shipper isolates by halving the batch.
enum SpooledEvent {
    /// Why `line` cannot be sent, or nil when it can: the full check.
    static func problem(_ line: some Collection<UInt8>) -> String? {
        let bytes = Array(line)
        if let problem = quickProblem(bytes[...]) { return problem }
        do {
            guard case .object = try JSONValue.parse(bytes) else { return "not a JSON object" }
        } catch {
            return "not valid JSON (\(error))"
        }
        return nil
    }

    /// The quick check of a line read back from the spool: not empty, no LF, valid UTF-8, and
    /// shaped like an object (`{` … `}`).
    static func quickProblem(_ line: ArraySlice<UInt8>) -> String? {
        guard let first = line.first, let last = line.last else { return "an empty line" }
        if line.contains(0x0A) { return "a line feed inside the event" }
        guard String(validating: line, as: UTF8.self) != nil else { return "not valid UTF-8" }
        guard first == UInt8(ascii: "{"), last == UInt8(ascii: "}") else { return "not a JSON object" }
        return nil
    }
}
