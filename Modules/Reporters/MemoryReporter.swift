public import EventModel
import Synchronization

/// Keeps every event in memory, in arrival order: the test kit of the reporter plugin point.
public final class MemoryReporter: Reporter {
    private let stored = Mutex<[TrackEvent]>([])

    public init() {}

    public func report(_ event: TrackEvent) {
        stored.withLock { $0.append(event) }
    }

    /// Every event received so far, oldest first.
    public var events: [TrackEvent] { stored.withLock { $0 } }

    /// The events' `type` and `name`, as `type name`, for compact assertions.
    public var summary: [String] { events.map { "\($0.type.rawValue) \($0.name)" } }

    /// Forgets the events received so far.
    public func removeAll() {
        stored.withLock { $0.removeAll() }
    }
}
