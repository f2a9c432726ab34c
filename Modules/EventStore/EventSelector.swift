import EventModel

/// Events chosen by their fields rather than by their type and name: a kind of an
/// `ActorEventQuery` that stands for them (`AnalyticsStore.actorEvents(_:selecting:_:)`; a
/// definition's events, module Definitions' `RuleEventMatcher`). Every event it selects has its
/// `type`; it may keep what it learns of paths and versions between calls (hence `mutating`).
public protocol EventSelector {
    /// The wire type of every event it selects.
    var type: String { get }
    /// The props key whose value `selects` may compare (`PathDayCount.value`'s spelling), nil
    /// when it compares none.
    var valueKey: String? { get }
    /// True when it selects a stored event of its `type` with these fields: `title` its
    /// `props.title` when a string, `value` its `props[valueKey]` as text (nil: none).
    mutating func selects(appKey: String, appVersion: String?, path: String?, title: String?, value: String?) -> Bool
    /// Whether it selects the events of its `type` with these fields whatever their
    /// `props[valueKey]`: so a store can decide for every event of a group from the group's
    /// fields alone (its rollups).
    mutating func selection(appKey: String, appVersion: String?, path: String?, title: String?) -> EventSelection
}

/// `EventSelector.selection`'s answer for the events of some fields.
public enum EventSelection: Sendable, Hashable {
    /// Every one of them is selected.
    case every
    /// None is.
    case none
    /// It depends on each event's `props[valueKey]`.
    case byValue
}

extension AnalyticsStore {
    /// The default `actorEvents(_:selecting:_:)`: reads `events` of the query's plain kinds' and
    /// the selectors' types and matches each; rows in storage order, sorted into time order when
    /// the query asks for it.
    public func selectingActorEvents<S: EventSelector>(
        _ query: ActorEventQuery, selecting selected: [(kind: Int, selector: S)], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        if selected.isEmpty { return try actorEvents(query, each) }
        if query.inTimeOrder {
            return try query.sortingByTime({ (q, e) throws(StoreError) in try selectingActorEvents(q, selecting: selected, e) }, each)
        }
        var selectors = selected
        let isSelected = Set(selected.map(\.kind))
        var types: [String] = []
        for (i, k) in query.kinds.enumerated() where !isSelected.contains(i) && !types.contains(k.type) { types.append(k.type) }
        for s in selected where !types.contains(s.selector.type) { types.append(s.selector.type) }
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
            for (i, k) in query.kinds.enumerated() where !isSelected.contains(i) && k.type == type && k.name == e.name {
                if !row(i) { return false }
            }
            for j in selectors.indices where selectors[j].selector.type == type {
                let value = selectors[j].selector.valueKey.flatMap { e.props[$0] }.map { $0.stringValue ?? $0.jsonText }
                let title = e.props["title"]?.stringValue
                guard selectors[j].selector.selects(appKey: stored.appKey, appVersion: stored.appVersion, path: e.path, title: title, value: value)
                else { continue }
                if !row(selectors[j].kind) { return false }
            }
            return true
        }
    }

    public func actorEvents<S: EventSelector>(
        _ query: ActorEventQuery, selecting selected: [(kind: Int, selector: S)], _ each: (ActorEvent) -> Bool
    ) throws(StoreError) {
        try selectingActorEvents(query, selecting: selected, each)
    }
}
