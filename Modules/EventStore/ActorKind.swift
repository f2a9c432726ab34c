/// Whom the analytics count (docs/reports.md "Actors and identity merge"): the one definition of
/// an actor, for every store, path and report.
///
/// - `.user`: a person. An event's actor as sent is its `user`, else its `device` (`sentID`);
///   then identity merge (`DeviceLinks`): an event without a user, of a device linked to exactly
///   one user, counts as that user's. User and device ids share one space within an app key, as
///   `user ?? device` always made them.
/// - `.device`: the `device` alone.
/// - `.session`: the `session`.
///
/// Actors of different app keys are different actors.
public enum ActorKind: String, Sendable, Hashable, CaseIterable {
    case user, device, session

    /// The id an event names for this kind as sent, before identity merge; nil when it has none
    /// (the event is then left out).
    @inline(__always)
    public func sentID(user: String?, device: String?, session: String?) -> String? {
        switch self {
        case .user: user ?? device
        case .device: device
        case .session: session
        }
    }

    /// `sentID` as an SQL expression over the `events` table's columns (both stores name them alike).
    public var sentIDColumn: String {
        switch self {
        case .user: "COALESCE(user_id, device_id)"
        case .device: "device_id"
        case .session: "session"
        }
    }

    /// True when identity merge applies to this kind: its actors are people.
    public var mergesDevices: Bool { self == .user }
}
