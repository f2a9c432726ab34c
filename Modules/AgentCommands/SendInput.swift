public import EventModel
public import Foundation

/// One line of an NDJSON event stream (docs/wire.md §3), read and checked.
public enum EventLine: Sendable, Hashable {
    /// A valid event on line `line` (1-based).
    case event(line: Int, TrackEvent)
    /// A line that is not a valid event, with the reason, as `send` prints it (`ts must be an integer, ...`).
    case invalid(line: Int, reason: String)

    /// `line 12: ts must be an integer, found a string`, or nil for a valid event.
    public var problem: String? {
        if case .invalid(let line, let reason) = self { return "line \(line): \(reason)" }
        return nil
    }
}

/// Reads NDJSON events from a file descriptor-backed handle, one line at a time, in bounded memory.
///
/// Lines end with LF (a CR before it is dropped); a line of only spaces and tabs is skipped and
/// is neither an event nor invalid. The last line needs no LF.
public struct EventLineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false
    private var lineNumber = 0
    private let chunkSize: Int

    /// Reads from `handle` (a file or standard input); does not close it.
    public init(handle: FileHandle, chunkSize: Int = 1 << 16) {
        self.handle = handle
        self.chunkSize = chunkSize
    }

    /// The next event or invalid line, nil at the end of input.
    public mutating func next() throws -> EventLine? {
        while true {
            guard let bytes = try nextLine() else { return nil }
            if let checked = EventLineReader.check(bytes, line: lineNumber) { return checked }
        }
    }

    /// Checks one line's bytes; nil for a blank line.
    public static func check(_ bytes: ArraySlice<UInt8>, line: Int) -> EventLine? {
        var body = bytes
        if body.last == 0x0D { body = body.dropLast() }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }
        let value: JSONValue
        do {
            value = try JSONValue.parse(body)
        } catch {
            return .invalid(line: line, reason: "not valid JSON (column \(error.column): \(error.reason))")
        }
        do {
            return .event(line: line, try TrackEvent(json: value))
        } catch {
            return .invalid(line: line, reason: error.description)
        }
    }

    private mutating func nextLine() throws -> ArraySlice<UInt8>? {
        var searchFrom = start
        while true {
            if let nl = buffer[searchFrom...].firstIndex(of: 0x0A) {
                let line = buffer[start..<nl]
                start = nl + 1
                lineNumber += 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return line
            }
            // Compact before reading more, so memory holds at most one partial line and one chunk.
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            searchFrom = buffer.count
            let data = try handle.read(upToCount: chunkSize) ?? Data()
            if data.isEmpty { atEnd = true } else { buffer.append(contentsOf: data) }
        }
    }
}
