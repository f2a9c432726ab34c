public import EventModel

/// A KVC rule whose key path named nothing (docs/config.md §3): what to report instead of a value.
///
/// `appVersion` is the version of the running app where the read failed (the rule's range is one
/// lookup away by `ruleID`).
public struct KVCErrorRecord: Error, Sendable, Hashable, CustomStringConvertible {
    public var ruleID: String
    public var appKey: String
    public var appVersion: String
    public var keyPath: String
    /// The part of the key path that named nothing.
    public var missingKey: String
    /// The parts read before it (empty when the first part missed).
    public var resolvedPrefix: String

    public init(ruleID: String, appKey: String, appVersion: String, keyPath: String, missingKey: String, resolvedPrefix: String = "") {
        self.ruleID = ruleID
        self.appKey = appKey
        self.appVersion = appVersion
        self.keyPath = keyPath
        self.missingKey = missingKey
        self.resolvedPrefix = resolvedPrefix
    }

    /// The record for `rule` whose read missed as `miss`, in an app at `appVersion`.
    public init(rule: KVCRule, miss: KeyPathMiss, appVersion: String) {
        self.init(
            ruleID: rule.id, appKey: rule.appKey, appVersion: appVersion, keyPath: rule.keyPath?.text ?? "", missingKey: miss.missingKey,
            resolvedPrefix: miss.resolvedPrefix)
    }

    /// The event's `props`: `ruleId`, `appKey`, `appVersion`, `keyPath`, `missingKey`, all strings.
    public var props: JSONObject {
        JSONObject([
            ("ruleId", .string(ruleID)), ("appKey", .string(appKey)), ("appVersion", .string(appVersion)),
            ("keyPath", .string(keyPath)), ("missingKey", .string(missingKey)),
        ])
    }

    /// The `kvc_error` event for this record; its `name` is the rule id.
    public func event(
        id: String, ts: Int64, page: String? = nil, path: String? = nil, viewId: String? = nil, session: String? = nil
    ) -> TrackEvent {
        TrackEvent(id: id, ts: ts, type: .kvcError, name: ruleID, page: page, path: path, viewId: viewId, session: session, props: props)
    }

    public var description: String {
        "rule \(ruleID) (\(appKey) \(appVersion)): key path \"\(keyPath)\" has no \"\(missingKey)\""
            + (resolvedPrefix.isEmpty ? "" : " under \"\(resolvedPrefix)\"")
    }
}

extension KVCRule {
    /// Reads this rule's value from a view's `props`: the value, or the `kvc_error` record to report;
    /// `.null` for a rule that reads nothing (no key path).
    public func value(from props: JSONValue, appVersion: String) -> Result<JSONValue, KVCErrorRecord> {
        guard let keyPath else { return .success(.null) }
        return keyPath.read(from: props).mapError { KVCErrorRecord(rule: self, miss: $0, appVersion: appVersion) }
    }

    /// Reads this rule's value from any Swift value by reflection: the value, or the `kvc_error` record;
    /// `.null` for a rule that reads nothing (no key path).
    public func value(reflecting root: Any, appVersion: String) -> Result<JSONValue, KVCErrorRecord> {
        guard let keyPath else { return .success(.null) }
        return keyPath.read(reflecting: root).mapError { KVCErrorRecord(rule: self, miss: $0, appVersion: appVersion) }
    }
}
