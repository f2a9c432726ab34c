public import EventModel
public import Reporters
import Synchronization

/// A reporter in front of others that drops what was queued before consent was withdrawn: put
/// it first in the reporting system and register `discard(upTo:)` with `Tracker.onDiscard`.
/// Events still in the reporting system's queue when the user opts out reach the gate after
/// the opt-out and are dropped there, so nothing captured before it is sent.
public final class ConsentGate: Reporter {
    public let reporters: [any Reporter]
    private let cutoff = Mutex<(upTo: Int64, discarded: Int)>((Int64.min, 0))

    public init(_ reporters: [any Reporter]) { self.reporters = reporters }

    /// From now on, events whose `ts` is at or before `ts` are dropped.
    public func discard(upTo ts: Int64) {
        cutoff.withLock { $0.upTo = max($0.upTo, ts) }
    }

    /// Events dropped so far.
    public var discarded: Int { cutoff.withLock { $0.discarded } }

    public func report(_ event: TrackEvent) throws {
        let drop = cutoff.withLock { c in
            guard event.ts <= c.upTo else { return false }
            c.discarded += 1
            return true
        }
        if drop { return }
        for r in reporters { try r.report(event) }
    }

    public func flush() throws {
        for r in reporters { try r.flush() }
    }
}
