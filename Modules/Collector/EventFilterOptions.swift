import Analytics
import Definitions
import CommandSupport
import EventModel
import EventStore

/// The filters every analytics command takes: `--app K --since T --until T --version V`.
struct EventFilterOptions {
    static let help = """
          --app KEY        only this app key's events
          --since T        events at or after T (corrected time); T is YYYY-MM-DD (midnight UTC),
                           RFC 3339 (2026-11-01T09:30:00Z, 2026-11-01T10:30:00+01:00) or epoch ms
          --until T        events before T (exclusive), same forms; both from 1970-01-01 to 9999-12-31
          --version V      only events whose HELLO named this app version (compared as text)
        """

    var filter: EventFilter

    /// Reads the four options; `requireApp` makes `--app` mandatory.
    init(arguments: inout Arguments, requireApp: Bool = false) throws(UsageError) {
        let app = requireApp ? try arguments.requiredOption("app") : try arguments.option("app")
        func time(_ name: String) throws(UsageError) -> Int64? {
            guard let text = try arguments.option(name) else { return nil }
            guard let t = TimeArgument.instant(text) else {
                throw UsageError(
                    "--\(name) '\(text)' is not a time; give YYYY-MM-DD, RFC 3339 (2026-11-01T09:30:00Z) or epoch milliseconds")
            }
            // The times events can have (EventTime); --until, exclusive, may be the millisecond after the last.
            guard t >= EventTime.earliest, t <= EventTime.latest + (name == "until" ? 1 : 0) else {
                throw UsageError(
                    "--\(name) '\(text)' is outside the times events can have, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z")
            }
            return t
        }
        let since = try time("since")
        let until = try time("until")
        if let since, let until, until <= since {
            throw UsageError("--until must be after --since (it is exclusive); the range selects nothing")
        }
        filter = EventFilter(appKey: app, appVersion: try arguments.option("version"), since: since, until: until)
    }

    /// Parses `TYPE:NAME` given to `--option`; the type must be a wire event type, or `rule`
    /// (`rule:ID`: a published rule's events).
    static func kind(_ text: String, option: String) throws(UsageError) -> EventKind {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw UsageError("--\(option) '\(text)' is not TYPE:NAME (e.g. page_enter:HomeViewController)")
        }
        let type = String(text[..<colon])
        if type == EventKind.ruleType {
            // rule:ID, the events a published rule selects (Definitions' RuleEvents).
            guard colon != text.index(before: text.endIndex) else {
                throw UsageError("--\(option) '\(text)' names no rule; give rule:ID with the id of a published rule")
            }
        } else if EventType(rawValue: type) == nil {
            throw UsageError(
                "--\(option) '\(text)': '\(type)' is not an event type; use one of "
                    + EventType.allCases.map(\.rawValue).joined(separator: ", ") + ", or rule:ID for a published rule's events")
        }
        return EventKind(type: type, name: String(text[text.index(after: colon)...]))
    }

    /// Parses a `--by` value among `allowed`.
    static func actorKind(_ text: String?, allowed: [ActorKind]) throws(UsageError) -> ActorKind {
        guard let text else { return .user }
        guard let kind = ActorKind(rawValue: text), allowed.contains(kind) else {
            throw UsageError("--by '\(text)' is not one of \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }
}

/// The formats `funnel` and `retention` print.
enum AnalyticsFormat: String, CaseIterable {
    case table, json, html

    init(_ text: String?) throws(UsageError) {
        guard let f = AnalyticsFormat(rawValue: text ?? "table") else {
            throw UsageError("--format '\(text ?? "")' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = f
    }

    /// Writes `answer` in this format on standard output; the HTML page names the database and filter.
    func write(_ answer: some AnalyticsAnswer, database: String, filter: EventFilter, io: any OutputStreams) {
        switch self {
        case .table: io.out(answer.tableText)
        case .json: io.print(answer.json.jsonText)
        case .html: io.out(AnalyticsHTML.page(title: answer.htmlTitle, database: database, filter: filter, body: answer.htmlBody))
        }
    }
}
