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
    /// (`RuleEvents`, whenever they were stored). Without rule kinds it is `actorEvents` itself,
    /// the store's fast path; with them the events of the kinds' types are read through
    /// `events` and matched here, one row per kind an event matches (so an event that two
    /// steps' definitions both select serves both).
    public func definitionActorEvents(
        _ query: ActorEventQuery, rules: [String: KVCRule], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        let ruleKinds = query.kinds.indices.filter { query.kinds[$0].ruleID != nil }
        if ruleKinds.isEmpty { return try actorEvents(query, each) }
        if query.inTimeOrder {
            return try query.sortingByTime({ (q, e) throws(StoreError) in try definitionActorEvents(q, rules: rules, e) }, each)
        }
        var matchers: [(kind: Int, matcher: RuleEventMatcher)] = []
        for i in ruleKinds {
            let id = query.kinds[i].ruleID!
            guard let rule = rules[id] else {
                throw StoreError(.notFound, "no rule '\(id)' was given for the step rule:\(id) (publishedRules finds it)")
            }
            matchers.append((i, RuleEventMatcher(rule)))
        }
        var types: [String] = []
        for k in query.kinds where k.ruleID == nil && !types.contains(k.type) { types.append(k.type) }
        for m in matchers where !types.contains(m.matcher.events.type) { types.append(m.matcher.events.type) }
        var numbering = try actorNumbers(for: query)
        try events(EventQuery(filter: query.filter, types: types)) { stored in
            let e = stored.event
            guard let id = query.actor.sentID(user: e.user, device: e.device, session: e.session) else { return true }
            let type = e.type.rawValue
            var actor: Int?
            func row(_ kind: Int) -> Bool {
                let a = actor ?? numbering.number(appKey: stored.appKey, id: id)
                actor = a
                return each(ActorEvent(kind: kind, actor: a, time: stored.time, seq: stored.seq))
            }
            for (i, k) in query.kinds.enumerated() where k.ruleID == nil && k.type == type && k.name == e.name {
                if !row(i) { return false }
            }
            for j in matchers.indices where matchers[j].matcher.selects(stored) {
                if !row(matchers[j].kind) { return false }
            }
            return true
        }
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
