import Foundation
import Synchronization

/// Where event timestamps come from: milliseconds since the Unix epoch, injectable for tests and replays.
public struct EventClock: Sendable {
    private let read: @Sendable () -> Int64

    /// A clock that reads `now` on every call.
    public init(_ now: @escaping @Sendable () -> Int64) { read = now }

    /// The current time in milliseconds since the Unix epoch.
    public func now() -> Int64 { read() }

    /// The system's wall clock.
    public static let system = EventClock { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A clock that always reads `ms`, for exact expectations in tests.
    public static func fixed(_ ms: Int64) -> EventClock { EventClock { ms } }
}

/// Hands out event ids unique per app key: the session id, `-`, and a sequence number from 1.
///
/// A class because the counter is shared by everyone who emits events for one session.
public final class EventIDSequence: Sendable {
    /// The session id, also set as every event's `session`.
    public let session: String
    private let counter = Atomic<Int64>(0)

    public init(session: String) { self.session = session }

    /// A fresh session id: `s-` and 16 random hexadecimal digits (unique enough across devices).
    public static func newSessionID() -> String {
        let hex = String(UInt64.random(in: .min ... .max), radix: 16)
        return "s-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The next id, such as `s-0f3a…-42`.
    public func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue
        return "\(session)-\(n)"
    }

    /// How many ids were handed out.
    public var issued: Int64 { counter.load(ordering: .relaxed) }
}
