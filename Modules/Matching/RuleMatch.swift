public import EventModel
public import KVCConfig

/// One rule that matched an interaction, and what its key path read.
///
/// The rule is referred to, not copied: a match holds the plan's rule array (one reference) and
/// the rule's position in it, so making and freeing a match retains and releases none of the
/// rule's fields. Two matches are equal when their positions, rules and results are.
public struct RuleMatch: Sendable, Hashable {
    /// The rule's position in `TrackingPlan.rules` (load order).
    public let ruleIndex: Int
    /// The plan's rules, `rule` among them.
    @usableFromInline let rules: [KVCRule]
    /// The value read, or the `kvc_error` record when the key path named nothing; `.null` for a
    /// rule without a key path (it reads nothing and never misses).
    public var result: Result<JSONValue, KVCErrorRecord>

    /// The match of `rules[ruleIndex]`.
    public init(ruleIndex: Int, of rules: [KVCRule], result: Result<JSONValue, KVCErrorRecord>) {
        precondition(rules.indices.contains(ruleIndex), "a match names a rule of its plan")
        self.ruleIndex = ruleIndex
        self.rules = rules
        self.result = result
    }

    /// The rule that matched, read in place (a field read copies only that field).
    @inlinable public var rule: KVCRule {
        _read { yield rules[ruleIndex] }
    }

    public static func == (a: RuleMatch, b: RuleMatch) -> Bool {
        a.ruleIndex == b.ruleIndex && a.result == b.result && a.rule == b.rule
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ruleIndex)
        hasher.combine(rule)
        hasher.combine(result)
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
