import EventModel
import KVCConfig

/// A key path of a matched rule that named nothing: the facts of a `kvc_error` record (config.md §3).
public struct KVCReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var ruleID: String
    public var appKey: String
    /// The version of the app the event came from; nil where the query gave none.
    public var appVersion: AppVersion?
    public var keyPath: String
    /// The part of the key path that named nothing.
    public var missingKey: String

    public init(ruleID: String, appKey: String, appVersion: AppVersion?, keyPath: String, missingKey: String) {
        self.ruleID = ruleID
        self.appKey = appKey
        self.appVersion = appVersion
        self.keyPath = keyPath
        self.missingKey = missingKey
    }

    public var description: String {
        let version = appVersion.map { " \($0)" } ?? ""
        return "rule \"\(ruleID)\" (app \(appKey)\(version)): key path \"\(keyPath)\" has no key \"\(missingKey)\"; "
            + "fix the rule's keyPath or the view's data"
    }
}

/// One rule that matched an interaction, and what its key path read.
public struct RuleMatch: Sendable, Hashable {
    /// The rule's position in `TrackingPlan.rules` (load order).
    public var ruleIndex: Int
    public var rule: KVCRule
    /// The value read, or the error record when the key path named nothing.
    public var result: Result<JSONValue, KVCReadError>

    public init(ruleIndex: Int, rule: KVCRule, result: Result<JSONValue, KVCReadError>) {
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
    public var error: KVCReadError? {
        if case .failure(let e) = result { return e }
        return nil
    }
}

/// Everything configured for one interaction: the event table's id, the labels, and the KVC rules with their values.
public struct InteractionMatch: Sendable, Hashable {
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
