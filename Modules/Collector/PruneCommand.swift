public import CommandSupport
import EventStore
import Foundation

/// `prune`: retention, deleting old events from either store in bounded transactions.
public struct PruneCommand: Command {
    public static let name = "prune"
    public static let abstract = "deletes events older than a date, in small transactions"
    public static let discussion = """
        Deletes the events whose time (the corrected time, docs/schema.md) is before DATE, and
        the rejected events and batch records received before it, and the snapshots (page
        pictures for the studio) captured before it; only app KEY's with --app.
        It works in transactions of at most ROWS rows, so collectors writing to the same
        database meanwhile wait for one chunk at most; interrupted, it can simply run again.
        Prints what it deleted. Then, on SQLite, it rebuilds the report rollups of the apps it
        pruned from the events left (docs/schema.md "Rollup tables"), in transactions of 5,000
        events, printing its progress on stderr; reports read the events until that is done.
        Nothing else is changed (published rules stay).
        """
    static let db = Option.single(
        "db", "FILE|URI", help: "the database: an SQLite file or a postgresql:// URI (no default, so a mistyped command never prunes ./autotrack.sqlite)",
        required: true, missing: "prune needs --db FILE or --db postgresql://... (the database to prune)")
    static let before = Option.single(
        "before", "DATE", help: "YYYY-MM-DD (midnight UTC) or an ISO 8601 time (2026-01-31T12:00:00Z)", required: true,
        missing: "prune needs --before DATE (YYYY-MM-DD, or an ISO 8601 time such as 2026-01-31T12:00:00Z)")
    static let app = Option.single("app", "KEY", help: "only this app key's rows")
    static let chunk = Option.single("chunk", "ROWS", help: "rows per transaction", default: "10000")
    public static let optionGroups = [OptionGroup([db, before, app, chunk])]
    public static let examples = """
        autotrack-agent demo --db autotrack.sqlite
        autotrack-collector prune --db autotrack.sqlite --before 2026-01-01 --app shop
        """

    public var database: String
    /// Milliseconds since the epoch.
    public var before: Int64
    public var appKey: String?
    public var chunk: Int

    public init(arguments: inout Arguments) throws(UsageError) {
        guard let db = try arguments.value(Self.db), !db.isEmpty else { throw Self.db.missingError }
        database = db
        let text = try arguments.required(Self.before)
        guard let date = Self.date(text) else {
            throw UsageError("--before '\(text)' is not a date; give YYYY-MM-DD or an ISO 8601 time such as 2026-01-31T12:00:00Z")
        }
        before = Int64((date.timeIntervalSince1970 * 1000).rounded())
        appKey = try arguments.value(Self.app)
        chunk = try arguments.int(defaulted: Self.chunk, in: 1...1_000_000)
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let outcome: PruneOutcome
        do throws(StoreError) {
            let store = try openStore(database, options: StoreOptions(access: .existing))
            defer { store.close() }
            outcome = try store.prune(before: before, appKey: appKey, chunk: chunk)
            var lines = RollupProgressLines()
            try store.rebuildRollups { p in
                if let line = lines.line(p) { io.printError("autotrack-collector prune: \(line)") }
            }
        } catch {
            io.printError("autotrack-collector prune: \(error)")
            return .failure
        }
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(before) / 1000))
        let scope = appKey.map { " of app \($0)" } ?? ""
        io.print(
            "pruned \(outcome.events) \(outcome.events == 1 ? "event" : "events"), \(outcome.rejected) rejected, "
                + "\(outcome.batches) batch \(outcome.batches == 1 ? "record" : "records") and \(outcome.snapshots) "
                + "\(outcome.snapshots == 1 ? "snapshot" : "snapshots")\(scope) before \(when) "
                + "in \(outcome.transactions) \(outcome.transactions == 1 ? "transaction" : "transactions")")
        return .success
    }

    /// `YYYY-MM-DD` (midnight UTC) or an ISO 8601 time with a zone.
    static func date(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let d = full.date(from: text) { return d }
        full.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = full.date(from: text) { return d }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        return day.date(from: text)
    }
}
