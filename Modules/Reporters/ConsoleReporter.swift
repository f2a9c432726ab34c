public import EventModel
import SystemCalls

/// Prints each event as one line: wire-form JSON, or a short human-readable summary.
public struct ConsoleReporter: Reporter {
    /// How a line looks.
    public enum Format: Sendable {
        /// The wire form, one JSON object per line (JSON Lines).
        case json
        /// `type name path` and the props, for people watching a demo.
        case text
    }

    /// Which standard stream to write.
    public enum Stream: Sendable {
        case standardOutput, standardError

        var descriptor: Int32 { self == .standardOutput ? 1 : 2 }
        var name: String { self == .standardOutput ? "standard output" : "standard error" }
    }

    public var format: Format
    public var stream: Stream

    public init(format: Format = .json, stream: Stream = .standardOutput) {
        self.format = format
        self.stream = stream
    }

    public func report(_ event: TrackEvent) throws(ReporterError) {
        let line = Array((ConsoleReporter.line(for: event, format: format) + "\n").utf8)
        do throws(PosixError) {
            try Posix.writeAll(stream.descriptor, line, path: stream.name)
        } catch {
            throw ReporterError(code: .writeFailed, target: stream.name, error)
        }
    }

    /// The text written for `event`, without the newline.
    public static func line(for event: TrackEvent, format: Format) -> String {
        switch format {
        case .json:
            return event.json.jsonText
        case .text:
            var s = "\(event.type.rawValue) \(event.name)"
            if let path = event.path { s += " path=\(path)" }
            if let duration = event.duration { s += " duration=\(duration)ms" }
            if !event.props.isEmpty { s += " props=\(JSONValue.object(event.props).jsonText)" }
            return s
        }
    }
}
