public import EventModel
public import KVCConfig

/// One rule that matched an interaction, and what its key path read.
public struct RuleMatch: Sendable, Hashable {
    /// The rule's position in `TrackingPlan.rules` (load order).
    public var ruleIndex: Int
    public var rule: KVCRule
    /// The value read, or the `kvc_error` record when the key path named nothing; `.null` for a
    /// rule without a key path (it reads nothing and never misses).
    public var result: Result<JSONValue, KVCErrorRecord>

    public init(ruleIndex: Int, rule: KVCRule, result: Result<JSONValue, KVCErrorRecord>) {
        self.ruleIndex = ruleIndex
        self.rule = rule
        self.result = result
    }

    /// The value, when the key path named one.
    public var value: JSONValue? {
        if case .success(let v) = result { return v }
        return nil
    }

    /// The error record, when the key path named nothing.
    public var error: KVCErrorRecord? {
        if case .failure(let e) = result { return e }
        return nil
    }
}

/// Everything configured for one interaction: the event table's id, the labels, and the KVC rules with their values.
public struct PlanMatch: Sendable, Hashable {
    /// From the event table: the page event id (page events) or the control event id (actions).
    public var eventID: String?
    /// Labelled screens (page events) or labelled events (actions), in load order.
    public var labels: [String]
    /// The KVC rules that matched, in plan order.
    public var rules: [RuleMatch]

    public init(eventID: String? = nil, labels: [String] = [], rules: [RuleMatch] = []) {
        self.eventID = eventID
        self.labels = labels
        self.rules = rules
    }

    /// True when nothing is configured for the interaction.
    public var isEmpty: Bool { eventID == nil && labels.isEmpty && rules.isEmpty }
}
