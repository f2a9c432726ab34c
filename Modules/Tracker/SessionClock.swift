/// The session every event carries, rotated after `timeout` without activity and at app start.
///
/// Event ids are `<session>-<n>`: each session numbers its events from 1, so ids stay unique per
/// app key while sessions are random.
struct SessionClock {
    let timeoutMilliseconds: Int64
    private(set) var ids: EventIDGenerator
    /// The time of the last event of the session; nil before the first.
    private var lastActivity: Int64?

    init(session: String, timeout: Duration) {
        ids = EventIDGenerator(prefix: session)
        timeoutMilliseconds = max(1, timeout.wholeMilliseconds)
    }

    var session: String { ids.prefix }

    /// The session for activity at `ts`: a new one when the last activity is `timeout` or more
    /// before `ts`, or when the app starts (again) after the session already saw activity.
    /// Returns whether it rotated.
    @discardableResult
    mutating func touch(at ts: Int64, appStart: Bool = false) -> Bool {
        defer { lastActivity = max(lastActivity ?? ts, ts) }
        guard let last = lastActivity else { return false }
        guard appStart || ts - last >= timeoutMilliseconds else { return false }
        rotate()
        return true
    }

    /// Starts a new session now (also `Tracker.reset()`).
    mutating func rotate() {
        ids = EventIDGenerator(prefix: Tracker.newSessionID())
        lastActivity = nil
    }
}
