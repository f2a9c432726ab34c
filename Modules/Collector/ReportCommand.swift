public import Analytics
import Definitions
public import CommandSupport
public import EventStore
import Foundation

/// `report`: the report of a collector database, as a table, JSON, CSV or a self-contained HTML page.
public struct ReportCommand: Command {
    public static let name = "report"
    public static let abstract = "summarizes a collector database: events, pages, rule coverage, KVC errors, rejected events"
    public static let discussion = """
        Reads the database that 'serve' writes, without changing it (a file that is not an
        Autotrack database is refused, and --out may not name the database or its -wal, -shm or
        -journal file), and prints: events per day with unique actors, devices and sessions;
        events by type and by name; pages with enter and leave counts, mean and p50/p90 dwell
        time, and the most frequent next page; rage clicks by view; per published rule, the events
        its view path covers and the values read under its key name; kvc_error counts per rule and
        app version; rejected events by reason; and, when asked, a funnel (as 'funnel') and a
        retention table (as 'retention'). docs/reports.md describes every figure and format.
        CSV cells that a spreadsheet would run as a formula are prefixed with '.

        --rule ID restricts the report to the events the published rule ID selects (its app,
        version range, view event, path pattern and content), whenever they were stored, also
        before the rule was published: every section then counts those events only (rejected
        events, duplicates and batches belong to no rule and are 0). The funnel and retention
        sections are not restricted: give them rule:ID steps.
        """
    static let db = Option.single(
        "db", "FILE|URI", help: "the database, or a postgresql:// URI; it must exist", default: "./autotrack.sqlite")
    static let format = Option.single(
        "format", "FORMAT", help: "table, json, csv or html (one self-contained file with charts)", default: "table")
    static let rule = ExportCommand.rule
    static let out = Option.single("out", "FILE", help: "write the report to FILE instead of standard output")
    public static let optionGroups = [
        OptionGroup([db, format, rule, out]), EventFilterOptions.group(),
        OptionGroup("FUNNEL SECTION (as 'funnel' takes them)", [FunnelCommand.step, FunnelCommand.within, FunnelCommand.by]),
        OptionGroup(
            "RETENTION SECTION (as 'retention' takes them)",
            [RetentionCommand.start, RetentionCommand.returning, RetentionCommand.period, RetentionCommand.periods, RetentionCommand.retentionBy]),
    ]
    public static let examples = """
        autotrack-agent demo --db shop.sqlite
        autotrack-collector report --db shop.sqlite --format html --out report.html \\
            --since 2026-11-01 --step page_enter:HomeViewController --step click:BUY \\
            --start app_start:launch --return app_start:launch
        autotrack-collector report --db shop.sqlite --rule home-open-product --format json --out open-product.json
        """

    public var database: String
    public var format: ReportFormat
    public var output: String?
    public var filter: EventFilter
    public var funnel: FunnelDefinition?
    public var retention: RetentionDefinition?
    /// `--rule`: the id of the published rule whose events alone the report covers.
    public var rule: String?

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.value(defaulted: Self.db)
        let formatText = try arguments.value(defaulted: Self.format)
        guard let f = ReportFormat(rawValue: formatText) else {
            throw UsageError(
                "--format '\(formatText)' is not one of \(ReportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        format = f
        output = try arguments.value(Self.out)
        filter = try EventFilterOptions(arguments: &arguments).filter
        rule = try arguments.value(Self.rule)
        funnel = try FunnelCommand.definition(&arguments, optional: true)
        retention = try RetentionCommand.definition(&arguments, optional: true, by: RetentionCommand.retentionBy)
        try arguments.finish()
        if let output { try refuseOutput(output, over: database) }
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let report = readStore(database, command: "autotrack-collector report", io: io, { store throws(StoreError) in
            let steps = (funnel?.steps ?? []) + [retention?.start, retention?.returning].compactMap { $0 }
            let rules = try store.publishedRules(ids: steps.compactMap(\.ruleID) + [rule].compactMap { $0 }, appKey: filter.appKey)
            var report =
                if let rule { try CollectorReport(store: store, rule: rules[rule]!, filter: filter) } else {
                    try CollectorReport(store: store, filter: filter)
                }
            if let funnel { report.funnel = try store.funnel(funnel, filter: filter, rules: rules) }
            if let retention { report.retention = try store.retention(retention, filter: filter, rules: rules) }
            return report
        }) else { return .failure }
        let text = format.renderer.render(report)
        guard let output else {
            io.out(text)
            return .success
        }
        do {
            try writeOutputFile(Array(text.utf8), to: output)
        } catch {
            io.printError("autotrack-collector report: cannot write \(output); check the directory exists and is writable")
            return .failure
        }
        io.print("wrote \(format.rawValue) report to \(output) (\(text.utf8.count) bytes)")
        return .success
    }
}
