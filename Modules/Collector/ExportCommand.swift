public import CommandSupport
import Definitions
import EventModel
public import EventStore
import KVCConfig

/// `export`: stored events as NDJSON (what `autotrack-agent send` reads) or CSV, streamed.
public struct ExportCommand: Command {
    public static let name = "export"
    public static let abstract = "writes stored events as NDJSON (accepted by autotrack-agent send) or CSV, streamed"
    public static let discussion = """
        Writes the stored events the filters select to standard output in storage order, one at a
        time (memory stays constant however many there are). ndjson: one event per line exactly as
        its wire form (docs/wire.md §3: id, ts as sent, type, name, ...), so
        'autotrack-agent send' accepts the file unchanged. csv: RFC 4180 with the header
        seq,app_key,app_version,id,ts,time,type,name,page,path,view_id,session,user,device,duration,props,actor
        (time is the corrected time; props is JSON; actor is whom analyses by user count the event
        for: its user, else the one user its device is linked to, else its device; text cells that
        a spreadsheet would run as a formula get a leading '). --rule ID writes only the events the
        published rule ID selects (its app, version range, view event, path pattern and content),
        whenever they were stored, also before the rule was published; it does not go with --type.
        """
    static let db = Option.single("db", "FILE", help: "the database; it must exist", default: "./autotrack.sqlite")
    static let format = Option.single("format", "FORMAT", help: "ndjson or csv", default: "ndjson")
    static let type = Option.repeatable("type", "TYPE", help: "only events of this type")
    static let rule = Option.single("rule", "ID", help: "only the events of the published rule ID (autotrack-collector rules list)")
    public static let optionGroups = [OptionGroup([db, format, type, rule]), EventFilterOptions.group()]
    public static let examples = """
        autotrack-agent demo --db autotrack.sqlite
        autotrack-collector export --db autotrack.sqlite --app shop --since 2026-11-01 --type click > clicks.ndjson
        autotrack-collector export --db autotrack.sqlite --rule home-open-product --format csv > open-product.csv
        """

    enum Format: String, CaseIterable { case ndjson, csv }

    public var database: String
    public var query: EventQuery
    /// `--rule`: the id of the published rule whose events alone are written.
    public var rule: String?
    var format: Format

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.value(defaulted: Self.db)
        let formatText = try arguments.value(defaulted: Self.format)
        guard let f = Format(rawValue: formatText) else { throw UsageError("--format '\(formatText)' is not ndjson or csv") }
        format = f
        query = EventQuery(types: try Self.types(&arguments))
        query.filter = try EventFilterOptions(arguments: &arguments).filter
        rule = try arguments.value(Self.rule)
        if rule != nil, !query.types.isEmpty {
            throw UsageError("--rule and --type do not go together: a rule's events are of its view event's type")
        }
        try arguments.finish()
    }

    /// Reads `--type` options; each must be a wire event type.
    static func types(_ arguments: inout Arguments) throws(UsageError) -> [String] {
        let types = try arguments.values(Self.type)
        for t in types where EventType(rawValue: t) == nil {
            throw UsageError("--type '\(t)' is not an event type; use one of \(EventType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return types
    }

    public static let csvHeader = [
        "seq", "app_key", "app_version", "id", "ts", "time", "type", "name", "page", "path", "view_id", "session", "user", "device",
        "duration", "props", "actor",
    ]

    public func run(io: any OutputStreams) -> ExitCode {
        var out = ChunkedOutput(io: io)
        if format == .csv { out.line(Self.csvHeader.joined(separator: ","), end: "\r\n") }
        do throws(StoreError) {
            let store = try openStore(database, options: StoreOptions(access: .readOnly))
            defer { store.close() }
            var query = query
            var matcher: RuleEventMatcher?
            if let rule {
                let found = try store.publishedRules(ids: [rule], appKey: query.filter.appKey)[rule]!
                query.filter.appKey = found.appKey
                query.types = [found.viewEvent.eventType.rawValue]
                matcher = RuleEventMatcher(found)
            }
            // The CSV's actor column: identity merge, as every analysis by user counts.
            let links = format == .csv ? try store.deviceLinks(appKey: query.filter.appKey) : .none
            try store.events(query) { e in
                if matcher != nil, !matcher!.selects(e) { return true }
                out.line(format == .csv ? Self.csvLine(e, links: links) : Self.ndjsonLine(e), end: format == .csv ? "\r\n" : "\n")
                return true
            }
        } catch {
            out.flush()
            io.printError("autotrack-collector export: \(error)")
            return .failure
        }
        out.flush()
        return .success
    }

    /// The event's wire form, one line.
    static func ndjsonLine(_ e: StoredEvent) -> String { e.event.json.jsonText }

    static func csvLine(_ e: StoredEvent, links: DeviceLinks) -> String {
        let v = e.event
        let text: [String] = [
            e.appKey, e.appVersion ?? "", v.id, String(v.ts), String(e.time), v.type.rawValue, v.name, v.page ?? "", v.path ?? "",
            v.viewId ?? "", v.session ?? "", v.user ?? "", v.device ?? "", v.duration.map { String($0) } ?? "",
            v.props.isEmpty ? "{}" : JSONValue.object(v.props).jsonText, links.actor(appKey: e.appKey, user: v.user, device: v.device) ?? "",
        ]
        let numeric: Set<Int> = [3, 4, 13]
        return ([String(e.seq)] + text.enumerated().map { i, cell in
            ReportCSVRenderer.field(numeric.contains(i) ? cell : ReportCSVRenderer.neutralized(cell))
        }).joined(separator: ",")
    }
}

/// Text written in chunks of about 64 KiB, so a long stream makes few writes and holds little.
struct ChunkedOutput {
    let io: any OutputStreams
    private var buffer = ""

    init(io: any OutputStreams) { self.io = io }

    mutating func line(_ text: String, end: String) {
        buffer += text
        buffer += end
        if buffer.utf8.count >= 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        io.out(buffer)
        buffer = ""
    }
}
