import EventModel
public import KVCConfig
public import ViewIdentity

/// What the whole plan is asked about one interaction: the KVC query plus the class and action
/// the event table is keyed by.
public struct PlanQuery: Sendable, Hashable {
    public var query: MatchQuery
    /// Page events: the controller's class; actions: the target's class.
    public var className: String?
    /// Actions only: the selector-style name, such as `onFavBtnPressed:`.
    public var action: String?

    public init(query: MatchQuery, className: String? = nil, action: String? = nil) {
        self.query = query
        self.className = className
        self.action = action
    }
}

/// Matches interactions against a whole tracking plan: event table, labels, and indexed KVC rules.
///
/// Built once per plan; immutable, so one matcher serves every thread. The cost of a match
/// depends on how many rules could match the event, not on how many rules the plan holds.
public struct PlanMatcher: Sendable {
    public let plan: TrackingPlan
    /// The one app this matcher answers for, or nil for a general matcher (collector, tools).
    public let app: AppIdentity?
    public let eventTable: EventTable
    private let index: RuleIndex

    /// Indexes `plan`. With `app`, rules of other app keys or of ranges that exclude the version
    /// are dropped here, once, as the SDK needs; without it, queries filter by their own key and version.
    public init(plan: TrackingPlan, app: AppIdentity? = nil) {
        self.plan = plan
        self.app = app
        eventTable = EventTable(plan: plan)
        if let app {
            index = RuleIndex(rules: plan.rules) { $0.appKey == app.key && $0.appVersion.contains(app.version) }
        } else {
            index = RuleIndex(rules: plan.rules) { _ in true }
        }
    }

    /// Plan positions (indexes into `plan.rules`) of the rules that match, ascending: exactly what a
    /// linear scan in load order gives.
    ///
    /// A matcher built for one app matches no rule for a query naming another app key or version.
    public func matchingRuleIndexes(_ query: MatchQuery) -> [Int] {
        positions(query, cache: nil).map(Int.init)
    }

    /// Like `matchingRuleIndexes(_:)`, answered from `cache` when the same view (the same full path,
    /// cell index paths included) meets the same event again.
    public func matchingRuleIndexes(_ query: MatchQuery, cache: MatchCache) -> [Int] {
        positions(query, cache: cache).map(Int.init)
    }

    /// The positions of the rules matching `query`, from `cache` where it has them.
    func positions(_ query: MatchQuery, cache: MatchCache?) -> [Int32] {
        if let hit = cache?.lookup(query) { return hit }
        var out: [Int32] = []
        matchingPositions(query, into: &out)
        cache?.store(query, out)
        return out
    }

    /// How many rules the index verifies for `query` (every app key), for tests of the pruning.
    func candidateCount(_ query: MatchQuery) -> Int {
        index.candidateCount(viewEvent: query.viewEvent, elements: query.path.elements, title: query.title)
    }

    func matchingPositions(_ query: MatchQuery, into out: inout [Int32]) {
        if let app {
            if let key = query.appKey, key != app.key { return }
            if let version = query.appVersion, version != app.version { return }
            index.matches(
                viewEvent: query.viewEvent, elements: query.path.elements, title: query.title, appKey: nil,
                appVersion: nil, into: &out)
        } else {
            index.matches(
                viewEvent: query.viewEvent, elements: query.path.elements, title: query.title, appKey: query.appKey,
                appVersion: query.appVersion, into: &out)
        }
    }

    /// The rules that match `query`, in plan order, each with the value its key path reads from `reader`
    /// or its `kvc_error` record. The record's `appVersion` is the query's version, else the matcher's
    /// app version, else empty (unknown).
    public func match(_ query: MatchQuery, reader: some KeyPathReading, cache: MatchCache? = nil) -> [RuleMatch] {
        // The positions as kept (one array fewer than as `Int`s, on every tracked interaction).
        let rules = plan.rules
        let appVersion = query.appVersion ?? app?.version
        return positions(query, cache: cache).map { position in
            let i = Int(position)
            // A rule that reads nothing matches with null and never misses.
            guard let keyPath = rules[i].keyPath else { return RuleMatch(ruleIndex: i, of: rules, result: .success(.null)) }
            let result = reader.read(keyPath, readText: rules[i].readText).mapError { miss in
                KVCErrorRecord(rule: rules[i], miss: miss, appVersion: appVersion?.description ?? "")
            }
            return RuleMatch(ruleIndex: i, of: rules, result: result)
        }
    }

    /// Everything configured for `interaction`: page events find the page event id and the screen's
    /// labels (labels on `PageEnter` only); actions find the control event id and the event's labels;
    /// every event finds its KVC rules.
    public func match(
        _ interaction: PlanQuery, reader: some KeyPathReading, cache: MatchCache? = nil
    ) -> PlanMatch {
        var result = PlanMatch(rules: match(interaction.query, reader: reader, cache: cache))
        guard let className = interaction.className else { return result }
        switch interaction.query.viewEvent {
        case .pageEnter:
            result.eventID = eventTable.pageEventID(className: className, enter: true)
            result.labels = eventTable.screenLabels(className: className)
        case .pageLeave:
            result.eventID = eventTable.pageEventID(className: className, enter: false)
        default:
            if let action = interaction.action {
                result.eventID = eventTable.controlEventID(className: className, action: action)
                result.labels = eventTable.eventLabels(className: className, selector: action)
            }
        }
        return result
    }
}

extension PlanMatcher {
    /// The query for a view node: its path and title, for `viewEvent` in the given app.
    public static func query(
        for node: any ViewNode, viewEvent: ViewEvent, appKey: String? = nil, appVersion: AppVersion? = nil
    ) -> MatchQuery {
        MatchQuery(viewEvent: viewEvent, path: ViewPath(of: node), title: node.title, appKey: appKey, appVersion: appVersion)
    }
}
