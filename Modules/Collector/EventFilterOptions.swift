import Analytics
import Definitions
import CommandSupport
import EventModel
import EventStore

/// The filters every analytics command takes: `--app K --since T --until T --version V`.
struct EventFilterOptions {
    static let app = Option.single("app", "KEY", help: "only this app key's events")
    static let since = Option.single(
        "since", "T",
        help: "events at or after T (corrected time); T is YYYY-MM-DD (midnight UTC), RFC 3339 (2026-11-01T09:30:00Z, "
            + "2026-11-01T10:30:00+01:00) or epoch ms")
    static let until = Option.single("until", "T", help: "events before T (exclusive), same forms; both from 1970-01-01 to 9999-12-31")
    static let version = Option.single("version", "V", help: "only events whose HELLO named this app version (compared as text)")

    /// The four filters, as the analytics commands take them; `requireApp` makes `--app` mandatory.
    static func group(requireApp: Bool = false) -> OptionGroup {
        OptionGroup("FILTER OPTIONS", [requireApp ? app.required() : app, since, until, version])
    }

    var filter: EventFilter

    /// Reads the four options; `requireApp` makes `--app` mandatory.
    init(arguments: inout Arguments, requireApp: Bool = false) throws(UsageError) {
        let app = requireApp ? try arguments.required(Self.app) : try arguments.value(Self.app)
        func time(_ option: Option) throws(UsageError) -> Int64? {
            let name = option.name
            guard let text = try arguments.value(option) else { return nil }
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
        let since = try time(Self.since)
        let until = try time(Self.until)
        if let since, let until, until <= since {
            throw UsageError("--until must be after --since (it is exclusive); the range selects nothing")
        }
        filter = EventFilter(appKey: app, appVersion: try arguments.value(Self.version), since: since, until: until)
    }

    /// Parses `TYPE:NAME` given to `--option`; the type must be a wire event type, or `rule`
    /// (`rule:ID`: a published rule's events).
    static func kind(_ text: String, option declaration: Option) throws(UsageError) -> EventKind {
        try kind(text, named: "--" + declaration.name)
    }

    /// Parses `TYPE:NAME` given as `what` (an option, `--step`, or a field of a studio request).
    static func kind(_ text: String, named option: String) throws(UsageError) -> EventKind {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw UsageError("\(option) '\(text)' is not TYPE:NAME (e.g. page_enter:HomeViewController)")
        }
        let type = String(text[..<colon])
        if type == EventKind.ruleType {
            // rule:ID, the events a published rule selects (Definitions' RuleEvents).
            guard colon != text.index(before: text.endIndex) else {
                throw UsageError("\(option) '\(text)' names no rule; give rule:ID with the id of a published rule")
            }
        } else if EventType(rawValue: type) == nil {
            throw UsageError(
                "\(option) '\(text)': '\(type)' is not an event type; use one of "
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

    static let option = Option.single("format", "FORMAT", help: "table, json or html", default: "table")

    init(_ text: String) throws(UsageError) {
        guard let f = AnalyticsFormat(rawValue: text) else {
            throw UsageError("--format '\(text)' is not one of \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
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
