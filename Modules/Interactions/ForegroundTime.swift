/// How long the app has been in the foreground since its last `app_start` or `app_foreground`:
/// the `duration` that `app_background` and `app_end` carry (docs/hooks.md "App lifecycle").
///
/// Every toolkit's hooks make their app interactions through `interaction(_:clock:)`, so the
/// simulated UIKit model and the GTK agent time them the same way, by the monotonic clock.
public struct ForegroundTime: Sendable {
    /// Monotonic nanoseconds when the app last came to the foreground; nil while in the background.
    private var since: UInt64?
    /// Whether the app's windows were active when `activity` was last told; nil until it was.
    private var active: Bool?

    public init() {}

    /// Whether the app is in the foreground (from `appStart` or `appForeground` until `appBackground`).
    public var inForeground: Bool { since != nil }

    /// The interaction for an app lifecycle `kind` now, timed: `appStart` and `appForeground`
    /// start the foreground time; `appBackground` and `appEnd` carry it as `duration` (ms) and end
    /// it. An `appEnd` in the background carries 0: that foreground time went with `appBackground`,
    /// so the durations of one run add up to its time in the foreground.
    public mutating func interaction(_ kind: Interaction.Kind, clock: any InteractionClock) -> Interaction {
        let now = clock.monotonicNanoseconds()
        var interaction = Interaction(kind: kind, timestamp: clock.wallMilliseconds())
        switch kind {
        case .appStart, .appForeground:
            if since == nil { since = now }
        case .appBackground, .appEnd:
            interaction.duration = since.map { now >= $0 ? Int64((now - $0) / 1_000_000) : 0 } ?? 0
            since = nil
        default:
            break
        }
        return interaction
    }

    /// The toolkit's hooks saw whether the app (one of its windows) is active now: the
    /// `appForeground` or `appBackground` to report when that changed since it was last told;
    /// nil when it did not, and the first time (the app's start is `appStart`'s).
    public mutating func activity(_ now: Bool, clock: any InteractionClock) -> Interaction? {
        defer { active = now }
        guard let was = active, was != now else { return nil }
        return interaction(now ? .appForeground : .appBackground, clock: clock)
    }
}
