public import Analytics
import Definitions
public import CommandSupport
public import EventStore

/// `retention`: cohorts by first start event, and how many came back in each later period.
public struct RetentionCommand: Command {
    public static let name = "retention"
    public static let abstract = "counts, per cohort of first start, the actors that return in each later day or week"
    public static let discussion = """
        An actor's cohort is the period (UTC day, or UTC week from Monday) of its first --start
        event in range; returned[i] counts the cohort's actors with a --return event in period
        cohort+i (i = 0 is the cohort's own period). An actor is a person (--by user: the
        event's user, else its device, a device seen with exactly one user counting as that
        user), or its device. rule:ID stands for the events the published rule ID
        selects, also those stored before it was published. JSON:
        {"period":"day","cohorts":[{"cohort":"2026-11-01","actors":N,"returned":[n0,n1,...]}]}
        """
    static let db = FunnelCommand.db
    static let start = Option.single(
        "start", "EVENT", help: "the event that puts an actor in a cohort: TYPE:NAME or rule:ID",
        missing: "missing --start TYPE:NAME (the event that puts an actor in a cohort)")
    static let returning = Option.single(
        "return", "EVENT", help: "the event that counts as coming back (may be the same): TYPE:NAME or rule:ID",
        missing: "missing --return TYPE:NAME (the event that counts as coming back)")
    static let period = Option.single("period", "P", help: "day or week", default: "day")
    static let periods = Option.single("periods", "N", help: "periods per cohort, its own first (at most 1000)", default: "7")
    static let by = Option.single("by", "KIND", help: "user (people, with identity merge) or device", default: "user")
    /// `report`'s name for `--by`, which there is the funnel's.
    static let retentionBy = Option.single(
        "retention-by", "KIND", help: "the retention's actor: user (people, with identity merge) or device", default: "user")
    public static let optionGroups = [
        OptionGroup([db, start.required(), returning.required(), period, periods, by, AnalyticsFormat.option]),
        EventFilterOptions.group(requireApp: true),
    ]
    public static let examples = """
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
        database = try arguments.value(defaulted: Self.db)
        definition = try Self.definition(&arguments)!
        format = try AnalyticsFormat(try arguments.value(defaulted: AnalyticsFormat.option))
        filter = try EventFilterOptions(arguments: &arguments, requireApp: true).filter
        try arguments.finish()
    }

    /// Reads `--start`, `--return`, `--period`, `--periods` and `by` (`--by`, or `--retention-by`
    /// in `report`, where `--by` is the funnel's); nil when neither start nor return is given and
    /// they are optional.
    static func definition(_ arguments: inout Arguments, optional: Bool = false, by: Option = RetentionCommand.by) throws(UsageError) -> RetentionDefinition? {
        let startText = try arguments.value(Self.start)
        let returnText = try arguments.value(Self.returning)
        let periodText = try arguments.value(defaulted: Self.period)
        let periods = try arguments.int(defaulted: Self.periods, in: 1...1000)
        let byText = try arguments.value(defaulted: by)
        if optional, startText == nil, returnText == nil { return nil }
        guard let startText else { throw Self.start.missingError }
        guard let returnText else { throw Self.returning.missingError }
        guard let period = RetentionPeriod(rawValue: periodText) else { throw UsageError("--period '\(periodText)' is not day or week") }
        return RetentionDefinition(
            start: try EventFilterOptions.kind(startText, option: Self.start),
            returning: try EventFilterOptions.kind(returnText, option: Self.returning), period: period, periods: periods,
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
