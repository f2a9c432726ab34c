public import Analytics
import EventModel
public import EventStore
public import KVCConfig

extension EventKind {
    /// The type of the kinds that stand for a rule's events in funnels and retention tables,
    /// `rule:ID`: never a wire type, so never a stored event's.
    public static let ruleType = "rule"

    /// The kind that stands for the events rule `id` selects (`rule:ID`).
    public static func rule(_ id: String) -> EventKind { EventKind(type: ruleType, name: id) }

    /// The rule id of a `rule:ID` kind, nil for an event type and name.
    public var ruleID: String? { type == Self.ruleType ? name : nil }
}

extension CollectorStore {
    /// The published rules with `ids` (of app `appKey` only, when given), by id. An id no
    /// published rule has, or one that two apps use without `appKey` saying which, throws
    /// `StoreError.Code.notFound` naming the ids there are.
    public func publishedRules(ids: [String], appKey: String?) throws(StoreError) -> [String: KVCRule] {
        guard !ids.isEmpty else { return [:] }
        let stored = try rules(appKey: appKey)
        var found: [String: KVCRule] = [:]
        for id in ids where found[id] == nil {
            let matches = stored.filter { $0.id == id }
            guard let first = matches.first, let rule = first.rule else {
                let known = Set(stored.map(\.id)).sorted()
                let app = appKey.map { " of app \($0)" } ?? ""
                throw StoreError(
                    .notFound,
                    "no published rule '\(id)'\(app) in \(location); "
                        + (known.isEmpty
                            ? "none is published\(app): publish one with 'autotrack-collector rules publish'"
                            : "the published ids are: \(known.joined(separator: ", "))"))
            }
            guard matches.count == 1 else {
                throw StoreError(
                    .notFound,
                    "rule '\(id)' is published for several apps (\(matches.map(\.appKey).joined(separator: ", "))); say which with --app")
            }
            found[id] = rule
        }
        return found
    }
}

extension AnalyticsStore {
    /// `actorEvents` where a kind `rule:ID` stands for the events `rules[ID]` selects
    /// (`RuleEvents`, whenever they were stored), one row per kind an event matches (so an event
    /// that two steps' definitions both select serves both): the store's
    /// `actorEvents(_:selecting:_:)` with a `RuleEventMatcher` per rule kind. Without rule kinds
    /// it is `actorEvents` itself.
    public func definitionActorEvents(
        _ query: ActorEventQuery, rules: [String: KVCRule], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        var matchers: [(kind: Int, selector: RuleEventMatcher)] = []
        for (i, k) in query.kinds.enumerated() {
            guard let id = k.ruleID else { continue }
            guard let rule = rules[id] else {
                throw StoreError(.notFound, "no rule '\(id)' was given for the step rule:\(id) (publishedRules finds it)")
            }
            matchers.append((i, RuleEventMatcher(rule)))
        }
        if matchers.isEmpty { return try actorEvents(query, each) }
        try actorEvents(query, selecting: matchers, each)
    }

    /// The funnel over the events `filter` selects, steps `rule:ID` counting `rules[ID]`'s events.
    public func funnel(_ definition: FunnelDefinition, filter: EventFilter, rules: [String: KVCRule]) throws(StoreError) -> FunnelResult {
        var counter = FunnelCounter(definition)
        try definitionActorEvents(counter.query(filter), rules: rules) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }

    /// The retention table over the events `filter` selects, a `rule:ID` start or return
    /// counting `rules[ID]`'s events.
    public func retention(_ definition: RetentionDefinition, filter: EventFilter, rules: [String: KVCRule]) throws(StoreError)
        -> RetentionResult
    {
        var counter = RetentionCounter(definition)
        try definitionActorEvents(counter.query(filter), rules: rules) { e in
            counter.add(e)
            return true
        }
        return counter.result()
    }
}
