public import Analytics
import Definitions
public import CommandSupport
import EventModel
public import EventStore

/// `funnel`: how many actors reach each of ordered steps within a window.
public struct FunnelCommand: Command {
    public static let name = "funnel"
    public static let abstract = "counts the actors that reach each step of a funnel, in order, within a time window"
    public static let discussion = """
        An actor reaches step k when it has events matching steps 1..k in that order (by corrected
        time, ties by storage order) with step k no later than --within after step 1. An actor is
        a person (--by user: the event's user, else its device, a device seen with exactly one
        user counting as that user before and after the sign-in), or its device, or its session;
        events without one are left out. Conversion is each step's actors over step 1's. A step rule:ID
        counts the events the published rule ID selects (its app, version range, view event,
        path pattern and content), also those stored before the rule was published. JSON:
        {"by":"user","withinMs":3600000,"steps":[{"step":"TYPE:NAME","actors":N,"conversion":0.42},...]}
        docs/reports.md describes the computation.
        """
    static let db = Option.single("db", "FILE", help: "the database; it must exist", default: "./autotrack.sqlite")
    static let step = Option.repeatable(
        "step", "STEP",
        help: "a step: TYPE:NAME, an event type (click, page_enter, ...) and name, or rule:ID, a published rule's events; "
            + "give two or more, in order")
    static let within = Option.single(
        "within", "D",
        help: "the window from step 1: 1h, 30m, 90s, 500ms, 2d, or whole milliseconds (at most 2932896d, the span of all valid "
            + "event times)", default: "1h")
    static let by = Option.single("by", "KIND", help: "user (people, with identity merge), device or session", default: "user")
    public static let optionGroups = [
        OptionGroup([db, step.required(), within, by, AnalyticsFormat.option]), EventFilterOptions.group(requireApp: true),
    ]
    public static let examples = """
        autotrack-agent demo --db autotrack.sqlite
        autotrack-collector funnel --db autotrack.sqlite --app shop \\
            --step page_enter:HomeViewController --step click:BUY --within 30m --format json
        autotrack-collector funnel --db autotrack.sqlite --app shop \\
            --step page_enter:EVENT_HOME_ENTER_PAGE --step rule:home-open-product --step rule:gift-cart-product
        """

    public var database: String
    public var definition: FunnelDefinition
    public var filter: EventFilter
    var format: AnalyticsFormat

    public init(arguments: inout Arguments) throws(UsageError) {
        database = try arguments.value(defaulted: Self.db)
        definition = try Self.definition(&arguments)!
        format = try AnalyticsFormat(try arguments.value(defaulted: AnalyticsFormat.option))
        filter = try EventFilterOptions(arguments: &arguments, requireApp: true).filter
        try arguments.finish()
    }

    /// Reads `--step` (two or more), `--within` and `--by`; nil when no `--step` is given and
    /// they are optional (`report`).
    static func definition(_ arguments: inout Arguments, optional: Bool = false) throws(UsageError) -> FunnelDefinition? {
        let stepTexts = try arguments.values(Self.step)
        let withinGiven = arguments.contains(Self.within)
        let withinText = try arguments.value(defaulted: Self.within)
        let byGiven = arguments.contains(Self.by)
        let byText = try arguments.value(defaulted: Self.by)
        if stepTexts.isEmpty, optional {
            if withinGiven || byGiven { throw UsageError("--within and --by need --step (a funnel)") }
            return nil
        }
        guard stepTexts.count >= 2 else {
            throw UsageError("a funnel needs at least two --step TYPE:NAME options, in order (got \(stepTexts.count))")
        }
        guard stepTexts.count <= 64 else { throw UsageError("a funnel has at most 64 steps (got \(stepTexts.count))") }
        var steps: [EventKind] = []
        for t in stepTexts { steps.append(try EventFilterOptions.kind(t, option: Self.step)) }
        guard let within = TimeArgument.duration(withinText) else {
            throw UsageError("--within '\(withinText)' is not a duration; give e.g. 1h, 30m, 90s, 500ms, 2d or milliseconds")
        }
        guard within <= EventTime.longestDuration else {
            throw UsageError(
                "--within '\(withinText)' is longer than \(EventTime.longestDuration) ms (2932896d), the span of all the times "
                    + "events can have (1970 to 9999); give a shorter window")
        }
        return FunnelDefinition(
            steps: steps, withinMilliseconds: within, by: try EventFilterOptions.actorKind(byText, allowed: ActorKind.allCases))
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let result = readStore(database, command: "autotrack-collector funnel", io: io, { store throws(StoreError) in
            try Self.result(of: definition, filter: filter, in: store)
        }) else { return .failure }
        format.write(result, database: database, filter: filter, io: io)
        return .success
    }

    /// The funnel's answer over `store`, its rule steps read from the published rules: what
    /// `funnel` prints and the studio's funnel insight shows.
    static func result(of definition: FunnelDefinition, filter: EventFilter, in store: any CollectorStore) throws(StoreError)
        -> FunnelResult
    {
        try store.funnel(
            definition, filter: filter, rules: try store.publishedRules(ids: definition.steps.compactMap(\.ruleID), appKey: filter.appKey))
    }
}
