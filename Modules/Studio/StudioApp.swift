/// One app as the studio lists it (`GET /api/apps`).
public struct StudioApp: Sendable, Hashable {
    public var appKey: String
    /// The versions seen in its events and pictures, in version order.
    public var versions: [String]
    /// How many pictures the collector keeps of it.
    public var snapshots: Int
    /// When circle mode ends (ms since the epoch); nil when it is off.
    public var circleModeUntil: Int64?

    public init(appKey: String, versions: [String], snapshots: Int, circleModeUntil: Int64?) {
        self.appKey = appKey
        self.versions = versions
        self.snapshots = snapshots
        self.circleModeUntil = circleModeUntil
    }
}
