import Analytics
import Definitions
import CommandSupport
import EventStore

/// `retention`: cohorts by first start event, and how many came back in each later period.
public struct RetentionCommand: Command {
    public static let name = "retention"
    public static let abstract = "counts, per cohort of first start, the actors that return in each later day or week"
    public static let help = """
        USAGE: autotrack-collector retention --db DB --app K --start TYPE:NAME|rule:ID --return TYPE:NAME|rule:ID
                                             [--period day|week] [--periods N] [--by user|device]
                                             [--format table|json|html] [--since T] [--until T] [--version V]

        An actor's cohort is the period (UTC day, or UTC week from Monday) of its first --start
        event in range; returned[i] counts the cohort's actors with a --return event in period
        cohort+i (i = 0 is the cohort's own period). An actor is a person (--by user: the
        event's user, else its device, a device seen with exactly one user counting as that
        user), or its device. rule:ID stands for the events the published rule ID
        selects, also those stored before it was published. JSON:
        {"period":"day","cohorts":[{"cohort":"2026-11-01","actors":N,"returned":[n0,n1,...]}]}

        OPTIONS:
          --db FILE          the database (default ./autotrack.sqlite); it must exist
          --start EVENT      the event that puts an actor in a cohort: TYPE:NAME or rule:ID
          --return EVENT     the event that counts as coming back (may be the same): TYPE:NAME or rule:ID
          --period P         day (default) or week
          --periods N        periods per cohort, its own first (default 7, at most 1000)
          --by KIND          user (default: people, with identity merge) or device
          --format FORMAT    table (default), json or html
        \(EventFilterOptions.help)
                             (--app is required)

        EXAMPLE:
          autotrack-agent demo --db autotrack.sqlite
          autotrack-collector retention --db autotrack.sqlite --app shop \\
              --start app_start:launch --return page_enter:HomeViewController --period day --periods 7
          autotrack-collector retention --db autotrack.sqlite --app shop \\
              --start app_start:app_start --return rule:home-open-product --periods 3

        """

    public var database: String
    public var definition: RetentionDefinition
    public var filter: EventFilter
    var format: AnalyticsFormat

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.option("db") ?? "./autotrack.sqlite"
        definition = try Self.definition(&arguments)!
        format = try AnalyticsFormat(try arguments.option("format"))
        filter = try EventFilterOptions(arguments: &arguments, requireApp: true).filter
        try arguments.finish()
    }

    /// Reads `--start`, `--return`, `--period`, `--periods` and `--by` (`--retention-by` in
    /// `report`, where `--by` is the funnel's); nil when neither start nor return is given and
    /// they are optional.
    static func definition(_ arguments: inout Arguments, optional: Bool = false, byOption: String = "by") throws(UsageError) -> RetentionDefinition? {
        let startText = try arguments.option("start")
        let returnText = try arguments.option("return")
        let periodText = try arguments.option("period")
        let periods = try arguments.intOption("periods", in: 1...1000) ?? 7
        let byText = try arguments.option(byOption)
        if optional, startText == nil, returnText == nil { return nil }
        guard let startText else { throw UsageError("missing --start TYPE:NAME (the event that puts an actor in a cohort)") }
        guard let returnText else { throw UsageError("missing --return TYPE:NAME (the event that counts as coming back)") }
        let period = RetentionPeriod(rawValue: periodText ?? "day")
        guard let period else { throw UsageError("--period '\(periodText ?? "")' is not day or week") }
        return RetentionDefinition(
            start: try EventFilterOptions.kind(startText, option: "start"),
            returning: try EventFilterOptions.kind(returnText, option: "return"), period: period, periods: periods,
            by: try EventFilterOptions.actorKind(byText, allowed: [.user, .device]))
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let result = readStore(database, command: "autotrack-collector retention", io: io, { store throws(StoreError) in
            try Self.result(of: definition, filter: filter, in: store)
        }) else { return .failure }
        format.write(result, database: database, filter: filter, io: io)
        return .success
    }

    /// The retention table over `store`, its rule kinds read from the published rules: what
    /// `retention` prints and the studio's retention insight shows.
    static func result(of definition: RetentionDefinition, filter: EventFilter, in store: any CollectorStore)
        throws(StoreError) -> RetentionResult
    {
        try store.retention(
            definition, filter: filter,
            rules: try store.publishedRules(ids: [definition.start, definition.returning].compactMap(\.ruleID), appKey: filter.appKey))
    }
}
