public import SystemCalls

/// Why an event was not taken into the spool. The caller keeps the event; nothing is
/// dropped behind its back.
public struct SpoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal.
    public enum Code: String, Sendable, Hashable {
        /// The spool holds `maxSpoolBytes` already: the collector has been unreachable too long.
        case full
        /// One event alone would not fit in a frame of `maxFrame` bytes.
        case eventTooLarge
        /// The event is not one line of UTF-8 holding a JSON object.
        case invalidEvent
        /// A file operation failed (`cause` has errno).
        case io
        /// The shipper was closed.
        case closed
    }

    public var code: Code
    public var message: String
    public var cause: PosixError?

    public init(_ code: Code, _ message: String, cause: PosixError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
