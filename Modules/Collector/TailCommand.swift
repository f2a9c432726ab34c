public import CommandSupport
public import EventStore
import Foundation
import SystemCalls

/// `tail`: prints new events as they are stored, until SIGINT/SIGTERM, `--limit` or `--timeout`.
public struct TailCommand: Command {
    public static let name = "tail"
    public static let abstract = "follows the events stored from now on, as NDJSON, until Ctrl-C"
    public static let discussion = """
        Prints each event stored after it starts (with --from-start: every stored event first),
        one NDJSON line each in storage order, as 'export' writes them, while 'serve' (or any
        collector on the same database) stores them. It asks the store for new events every
        --interval milliseconds on its own thread, and stops on SIGINT (Ctrl-C) or SIGTERM,
        after --limit events, or after --timeout seconds, whichever comes first.
        """
    static let fromStart = Option.flag("from-start", help: "print the events already stored first")
    static let limit = Option.single("limit", "N", help: "stop after N events")
    static let timeout = Option.single("timeout", "SECONDS", help: "stop after this long (default: never)")
    static let interval = Option.single("interval", "MS", help: "how often to look for new events, 10 to 60000", default: "500")
    public static let optionGroups = [
        OptionGroup([ExportCommand.db, ExportCommand.type, fromStart, limit, timeout, interval]), EventFilterOptions.group(),
    ]
    public static let examples = """
        autotrack-agent demo --db autotrack.sqlite
        autotrack-collector tail --db autotrack.sqlite --app shop --type click --timeout 5
        """

    public var database: String
    public var query: EventQuery
    public var fromStart: Bool
    public var limit: Int?
    public var timeoutSeconds: Double?
    public var intervalMilliseconds: Int

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.value(defaulted: ExportCommand.db)
        query = EventQuery(types: try ExportCommand.types(&arguments))
        query.filter = try EventFilterOptions(arguments: &arguments).filter
        fromStart = arguments.isSet(Self.fromStart)
        limit = try arguments.int(Self.limit, in: 1...Int.max)
        timeoutSeconds = try arguments.double(Self.timeout, in: 0...31_536_000)
        intervalMilliseconds = try arguments.int(defaulted: Self.interval, in: 10...60_000)
        try arguments.finish()
    }

    /// Events read per query: a backlog is printed in pages of this many.
    static let page = 1_000

    public func run(io: any OutputStreams) -> ExitCode {
        let store: any CollectorStore
        do throws(StoreError) {
            store = try openStore(database, options: StoreOptions(access: .readOnly))
        } catch {
            io.printError("autotrack-collector tail: \(error)")
            return .failure
        }
        defer { store.close() }
        // SIGINT/SIGTERM end the wait between polls; without the route (one per process, e.g.
        // in a test runner that routes them already) the loop still ends by limit or timeout.
        let signals = try? SignalWaiter([SIGINT, SIGTERM])
        defer { signals?.cancel() }
        let started = Date()
        var printed = 0
        var query = self.query
        do throws(StoreError) {
            if !fromStart { query.afterSeq = try store.lastSequence() ?? 0 }
            while true {
                var got = 0
                var out = ChunkedOutput(io: io)
                query.limit = Self.page
                try store.events(query) { e in
                    out.line(ExportCommand.ndjsonLine(e), end: "\n")
                    query.afterSeq = e.seq
                    got += 1
                    printed += 1
                    return limit.map { printed < $0 } ?? true
                }
                out.flush()
                if let limit, printed >= limit { break }
                if got == Self.page { continue }  // More may be waiting: no pause.
                var wait = intervalMilliseconds
                if let timeoutSeconds {
                    let left = timeoutSeconds - Date().timeIntervalSince(started)
                    if left <= 0 { break }
                    wait = min(wait, Int((left * 1000).rounded(.up)))
                }
                if let signals {
                    if signals.wait(timeoutMilliseconds: Int32(wait)) != nil { break }
                } else {
                    Posix.sleep(.milliseconds(wait))
                }
            }
        } catch {
            io.printError("autotrack-collector tail: \(error)")
            return .failure
        }
        return .success
    }
}
