import Analytics
public import CommandSupport
import EventModel
public import EventStore
import SystemCalls

/// `alert`: exits 1 when some rule had at least N `kvc_error` events in the last DURATION, and
/// hands them to a command (mail, a pager), so cron or CI can tell the rule's owners.
public struct AlertCommand: Command {
    public static let name = "alert"
    public static let abstract = "exits 1 and lists the rules with at least N kvc errors in a recent window, for cron or CI"
    public static let discussion = """
        Counts each rule's kvc_error events (the agent's records of a key path that no longer
        resolves) whose corrected time is in the last DURATION before now, per app and rule id,
        all versions together. A rule is over when its count is N or more. Prints one line per
        rule over (app, rule, count, versions with their counts, key paths, missing keys), most
        errors first, or "no rule reached N kvc errors in the last DURATION". With --exec, CMD
        runs through /bin/sh -c, only when some rule is over, with the JSON document on its
        standard input:
        {"kvcErrors":N,"withinMs":3600000,"since":MS,"now":MS,"app":null,"version":null,
         "rules":[{"app":"shop","rule":"fav-product","count":4,"versions":[{"version":"1.2.0","count":4}],
                   "keyPaths":["product.id"],"missingKeys":["id"]}]}
        Exit status: 0 no rule over; 1 some rule over (and CMD, if given, exited 0); 2 bad
        arguments; 3 the database could not be read, or CMD could not start, exited non-zero or
        outran --exec-timeout (the rules are printed all the same). docs/collector.md describes it.

        With --definitions, checks every published definition (rule) instead: it is broken in
        its app's newest version it covers when that version has interactions of its kind on its
        page but none it counts, or that version's newest picture of its page has no element it
        selects (docs/studio.md). Prints one line per broken definition with the drift check's
        suggested path, or "no definition is broken ..."; exits 1 when one is (CMD, if given,
        reads {"definitions":N,"now":MS,"app":null,"broken":[{"app","rule","name","appVersion",
        "count","pageInteractions","inPicture","viewPaths":[...],"suggestion":P|null}]}).
        """
    static let db = Option.single(
        "db", "DB", help: "the database: a SQLite file or a postgres:// URI; it must exist", default: "./autotrack.sqlite")
    static let kvcErrors = Option.single("kvc-errors", "N", help: "the threshold, a whole number from 1", required: true)
    static let within = Option.single(
        "within", "DURATION", help: "the window before now: 1h, 30m, 90s, 500ms, 2d, or whole milliseconds", required: true)
    static let definitionsFlag = Option.flag(
        "definitions", help: "check the published definitions instead (no --kvc-errors, --within, --version)")
    static let app = Option.single("app", "KEY", help: "only this app key's errors (or definitions)")
    static let version = Option.single("version", "V", help: "only errors of this app version (the HELLO's, compared as text)")
    static let format = Option.single(
        "format", "FORMAT", help: "text or json (the document --exec reads, also when no rule is over)", default: "text")
    static let exec = Option.single("exec", "CMD", help: "a shell command to run when some rule is over, the JSON on its stdin")
    static let execTimeout = Option.single(
        "exec-timeout", "DURATION", help: "how long CMD may run before it is killed", default: "30s")
    public static let optionGroups = [OptionGroup([db, kvcErrors, within, definitionsFlag, app, version, format, exec, execTimeout])]
    public static let usage = [
        Usage(options: [db, kvcErrors, within, app, version, format, exec, execTimeout]),
        Usage(options: [db, definitionsFlag, app, format, exec, execTimeout]),
    ]
    public static let examples = """
        autotrack-agent demo --db autotrack.sqlite
        autotrack-collector alert --db autotrack.sqlite --kvc-errors 1000 --within 1h
          no rule reached 1000 kvc errors in the last 1h
        autotrack-collector alert --db autotrack.sqlite --kvc-errors 1 --within 1d --exec 'cat > alert.json'
        autotrack-collector alert --db autotrack.sqlite --definitions
        """

    public var database: String
    public var threshold: Int
    public var withinText: String
    public var withinMilliseconds: Int64
    public var filter: EventFilter
    public var json: Bool
    public var exec: String?
    public var execTimeout: Duration
    /// `--definitions`: the definitions' check instead of the kvc errors' (`threshold` and the
    /// window are then 0 and unused).
    public var definitions: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        let database = try arguments.value(defaulted: Self.db)
        if arguments.isSet(Self.definitionsFlag) {
            try self.init(definitionsWith: &arguments, database: database)
        } else {
            try self.init(kvcErrorsWith: &arguments, database: database)
        }
    }

    /// The rest of the kvc errors' check's options (`--db` is read).
    init(kvcErrorsWith arguments: inout Arguments, database: String) throws(UsageError) {
        self.database = database
        definitions = false
        let thresholdText = try arguments.required(Self.kvcErrors)
        guard let n = Int(thresholdText), n >= 1 else {
            throw UsageError("--kvc-errors '\(thresholdText)' is not a whole number from 1; give the count that should alert, e.g. 10")
        }
        threshold = n
        withinText = try arguments.required(Self.within)
        withinMilliseconds = try Self.duration(withinText, option: Self.within.name)
        filter = EventFilter(appKey: try arguments.value(Self.app), appVersion: try arguments.value(Self.version))
        let format = try arguments.value(defaulted: Self.format)
        guard format == "text" || format == "json" else { throw UsageError("--format '\(format)' is not one of text, json") }
        json = format == "json"
        (exec, execTimeout) = try Self.execOptions(&arguments)
        try arguments.finish()
    }

    /// `--exec` and `--exec-timeout`: the command (nil when not given) and its time limit.
    static func execOptions(_ arguments: inout Arguments) throws(UsageError) -> (String?, Duration) {
        let exec = try arguments.value(Self.exec)
        if exec?.isEmpty == true { throw UsageError("--exec needs a command; give e.g. --exec 'mail -s alert owners@example.com'") }
        if arguments.contains(Self.execTimeout), exec == nil { throw UsageError("--exec-timeout needs --exec (a command to bound)") }
        return (exec, .milliseconds(try Self.duration(try arguments.value(defaulted: Self.execTimeout), option: Self.execTimeout.name)))
    }

    /// A positive duration no longer than events' whole time span.
    static func duration(_ text: String, option: String) throws(UsageError) -> Int64 {
        guard let d = TimeArgument.duration(text), d > 0 else {
            throw UsageError("--\(option) '\(text)' is not a positive duration; give e.g. 1h, 30m, 90s, 500ms, 2d or milliseconds")
        }
        guard d <= EventTime.longestDuration else {
            throw UsageError("--\(option) '\(text)' is longer than \(EventTime.longestDuration) ms (2932896d); give a shorter one")
        }
        return d
    }

    /// Exit status when the database cannot be read or CMD fails (0, 1 and 2 have their own meanings).
    static let notDelivered = ExitCode(3)

    public func run(io: any OutputStreams) -> ExitCode {
        if definitions { return runDefinitions(io: io) }
        let now = Posix.wallClockMillis()
        var window = filter
        window.since = max(EventTime.earliest, now - withinMilliseconds)
        guard let counts = readStore(database, command: "autotrack-collector alert", io: io, { store throws(StoreError) in
            try store.kvcErrorCounts(window)
        }) else { return Self.notDelivered }
        let alert = KVCErrorAlert(
            counts: counts, threshold: threshold, withinMilliseconds: withinMilliseconds, since: window.since!, now: now, filter: filter)
        let document = alert.json.jsonText + "\n"
        if json { io.out(document) } else { for line in alert.lines(within: withinText) { io.print(line) } }
        guard !alert.rules.isEmpty else { return .success }
        return deliver(document, io: io)
    }

    /// Exit 1 when there is no `--exec` or CMD took `document` and exited 0; `notDelivered` otherwise.
    func deliver(_ document: String, io: any OutputStreams) -> ExitCode {
        guard let exec else { return .failure }
        do throws(PosixError) {
            switch try Posix.runShellCommand(exec, input: Array(document.utf8), timeout: execTimeout) {
            case .exited(0): return .failure
            case .exited(let status):
                io.printError("autotrack-collector alert: --exec '\(exec)' exited with status \(status); the alert was not delivered; fix the command and run alert again")
            case .timedOut:
                io.printError(
                    "autotrack-collector alert: --exec '\(exec)' still ran after \(execTimeout) and was killed; the alert was not delivered; "
                        + "give a longer --exec-timeout or a faster command")
            }
        } catch {
            io.printError("autotrack-collector alert: --exec '\(exec)' could not start: \(error); the alert was not delivered")
        }
        return Self.notDelivered
    }
}
