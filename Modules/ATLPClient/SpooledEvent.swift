import EventModel

/// What the collector takes whole: an event line must be UTF-8 and one JSON object, or the
/// collector refuses its whole batch (`bad-frame`, `bad-json`). Checked when an event is spooled
/// from outside JSON and again when a batch is read back from disk (a torn or damaged file).
enum SpooledEvent {
    /// Why `line` cannot be sent, or nil when it can.
    static func problem(_ line: some Collection<UInt8>) -> String? {
        let bytes = Array(line)
        if bytes.isEmpty { return "an empty line" }
        if bytes.contains(0x0A) { return "a line feed inside the event" }
        guard String(validating: bytes, as: UTF8.self) != nil else { return "not valid UTF-8" }
        do {
            guard case .object = try JSONValue.parse(bytes) else { return "not a JSON object" }
        } catch {
            return "not valid JSON (\(error))"
        }
        return nil
    }
}
