/// Receives every interaction, synchronously, on the UI thread, while the views are live.
///
/// Must be quick: it runs inside the user's tap. Heavy work (delivery) belongs on the
/// reporting system's queue, as `ReportingObserver` does. Every toolkit's hook system reports to
/// one. What a tracker offers the hooks beyond interactions (`ImpressionRules`,
/// `TrackedMethodSource`) a hook system finds with `offered(_:)`, through any relays in front of it.
public protocol InteractionObserver: AnyObject {
    func observe(_ interaction: Interaction)
}

/// An observer that passes every interaction on to `next` after looking at it (a page tree
/// writer, a snapshotter in front of a tracker).
public protocol InteractionRelay: InteractionObserver {
    var next: any InteractionObserver { get }
}

extension InteractionObserver {
    /// This observer as `T`, or the first observer behind its relays that is one; nil when none is.
    public func offered<T>(_ type: T.Type) -> T? {
        var observer: any InteractionObserver = self
        // Relays form a chain written by the program; the bound only stops a cycle.
        for _ in 0..<64 {
            if let found = observer as? T { return found }
            guard let relay = observer as? any InteractionRelay else { return nil }
            observer = relay.next
        }
        return nil
    }
}
