import EventModel
import EventStore
import Synchronization
import SystemCalls

/// Which app keys are in circle mode, read from the store at most once per `maxAge`, so a
/// `CONFIG` answer costs no query (docs/wire.md §2, choice 19). Turning circle mode on or off
/// (the `circle` command, the studio, another collector on the same database) reaches the
/// answers within `maxAge`.
final class CircleModeCache: Sendable {
    private let store: (any SnapshotStore)?
    private let maxAge: Duration
    private let log: (@Sendable (String) -> Void)?
    /// The modes last read and when; nil before the first read.
    private let state = Mutex<(modes: [String: Int64], readAt: ContinuousClock.Instant?)>(([:], nil))

    init(store: (any SnapshotStore)?, maxAge: Duration = .seconds(1), log: (@Sendable (String) -> Void)?) {
        self.store = store
        self.maxAge = maxAge
        self.log = log
    }

    /// True while circle mode is on for `appKey`. A failed read keeps the modes read before
    /// (logged): a CONFIG answer never fails for it.
    func isOn(appKey: String) -> Bool {
        guard let store else { return false }
        let now = ContinuousClock.now
        let (modes, fresh) = state.withLock { s in (s.modes, s.readAt.map { now - $0 < maxAge } ?? false) }
        var current = modes
        if !fresh {
            do throws(StoreError) {
                current = try store.circleModes()
            } catch {
                log?("could not read the circle modes (\(LogText.escaped("\(error)"))); using those read before")
            }
            // One reader at a time is not needed: a second concurrent read stores the same answer.
            state.withLock { $0 = (current, now) }
        }
        return (current[appKey] ?? 0) > Posix.wallClockMillis()
    }
}
