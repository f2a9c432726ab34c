import CommandSupport
import EventStore
import Foundation

/// `report`: the report of a collector database, as a table, JSON, CSV or a self-contained HTML page.
public struct ReportCommand: Command {
    public static let name = "report"
    public static let abstract = "summarizes a collector database: events, pages, rule coverage, KVC errors, rejected events"
    public static let help = """
        USAGE: autotrack-collector report [--db FILE] [--format table|json|csv|html] [--out FILE]

        Reads the database that 'serve' writes and prints: events by type and by name; pages
        with enter and leave counts and mean dwell time; per published rule, the events its
        view path covers and the values read under its key name; kvc_error counts per rule and
        app version; rejected events by reason. docs/reports.md describes every format.

        OPTIONS:
          --db FILE        the database (default ./autotrack.sqlite); it must exist
          --format FORMAT  table (default), json, csv or html (one self-contained file with charts)
          --out FILE       write the report to FILE instead of standard output

        EXAMPLE:
          autotrack-collector report --db /var/lib/autotrack/events.sqlite --format html --out report.html

        """

    public var database: String
    public var format: ReportFormat
    public var output: String?

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.option("db") ?? "./autotrack.sqlite"
        let formatText = try arguments.option("format") ?? "table"
        guard let f = ReportFormat(rawValue: formatText) else {
            throw UsageError(
                "--format '\(formatText)' is not one of \(ReportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        format = f
        output = try arguments.option("out")
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let report: CollectorReport
        do throws(SQLiteError) {
            let store = try EventStore(path: database, mode: .existing)
            report = try CollectorReport(store: store)
        } catch {
            io.printError("autotrack-collector report: \(error)")
            return .failure
        }
        let text = format.renderer.render(report)
        guard let output else {
            io.out(text)
            return .success
        }
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        } catch {
            io.printError("autotrack-collector report: cannot write \(output): \(error.localizedDescription); check the directory exists and is writable")
            return .failure
        }
        io.print("wrote \(format.rawValue) report to \(output) (\(text.utf8.count) bytes)")
        return .success
    }
}
