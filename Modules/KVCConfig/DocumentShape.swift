public import EventModel

/// The three kinds of configuration document (docs/config.md §1–3), told apart by content.
public enum DocumentShape: String, Sendable, Hashable, CaseIterable {
    /// `{"Class": {"PageEventIDs": {...}, "ControlEventIDs": {...}}}`
    case eventTable = "event-table"
    /// `{"trackedScreens": [...], "trackedEvents": [...]}`
    case labelled
    /// `{"rules": [...], "ignore": [...]}` (either member alone too)
    case rules

    /// What the three shapes look like, for "expected ..." in errors.
    static let expectedText =
        "one of the three configuration shapes: an event table ({\"Class\": {\"PageEventIDs\": {...}, \"ControlEventIDs\": {...}}}), "
        + "labelled screens and events ({\"trackedScreens\": [...], \"trackedEvents\": [...]}), or KVC rules ({\"rules\": [...], \"ignore\": [...]})"

    /// Which shape `root` has; nil when it is none of them.
    ///
    /// One member that looks like a class entry makes an event table (so a typo in another class is
    /// reported inside the table, not as an unknown document); else a `rules` or `ignore` member makes a
    /// rules document, a `trackedScreens`/`trackedEvents` member a labelled one. An empty object is an
    /// empty event table.
    public static func detect(_ root: JSONValue) -> DocumentShape? {
        guard case .object(let o) = root else { return nil }
        if o.isEmpty { return .eventTable }
        for m in o where isClassEntry(m.value) { return .eventTable }
        if o["rules"] != nil || o["ignore"] != nil { return .rules }
        if o["trackedScreens"] != nil || o["trackedEvents"] != nil { return .labelled }
        return nil
    }

    static func isClassEntry(_ v: JSONValue) -> Bool {
        guard case .object(let c) = v else { return false }
        return c["PageEventIDs"] != nil || c["ControlEventIDs"] != nil
    }
}
