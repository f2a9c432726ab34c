import Interactions

/// One registered target-action pair, with the tracking proxies hook systems placed beside it.
public final class TargetActionEntry {
    private(set) weak var target: AnyObject?
    let targetTypeName: String
    let action: ActionName
    /// The events it is registered for: adding the pair again widens them, removing narrows them.
    fileprivate(set) var events: ControlEvents
    /// Calls the action on the target with the sender and the events that fired.
    let body: (AnyObject, AnyObject, ControlEvents) -> Void
    /// Run before the target, one per hook system watching the sender.
    private(set) var proxies: [TrackingProxy] = []

    init(target: AnyObject, action: ActionName, events: ControlEvents, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void) {
        self.target = target
        self.targetTypeName = String(reflecting: type(of: target))
        self.action = action
        self.events = events
        self.body = body
    }

    /// Places `proxy` unless one of the same owner is there already.
    func place(_ proxy: TrackingProxy) {
        guard !proxies.contains(where: { $0.owner == proxy.owner }) else { return }
        proxies.append(proxy)
    }

    func hasProxy(of owner: ObjectIdentifier) -> Bool { proxies.contains { $0.owner == owner } }

    func matches(target: AnyObject?, action: ActionName?) -> Bool {
        (target == nil || self.target === target) && (action == nil || self.action == action)
    }
}

/// What a hook system places beside a real target: it observes the action just before the target runs.
final class TrackingProxy {
    /// The hook system that placed it.
    let owner: ObjectIdentifier
    /// Reports the interaction: `(sender, events that fired)`.
    let fire: (AnyObject, ControlEvents) -> Void

    init(owner: ObjectIdentifier, fire: @escaping (AnyObject, ControlEvents) -> Void) {
        self.owner = owner
        self.fire = fire
    }
}

/// The target-action pairs of a control or gesture recogniser, in registration order, as UIKit keeps them.
struct TargetActionList {
    private(set) var entries: [TargetActionEntry] = []

    /// Registers the pair for `events`; the same target and action again is the same registration,
    /// its events widened (UIKit does not add a second one).
    mutating func add(
        target: AnyObject, action: ActionName, events: ControlEvents, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void
    ) -> TargetActionEntry {
        if let existing = entries.first(where: { $0.target === target && $0.action == action }) {
            existing.events.formUnion(events)
            return existing
        }
        let entry = TargetActionEntry(target: target, action: action, events: events, body: body)
        entries.append(entry)
        return entry
    }

    /// Removes `events` from the pairs matching `target` and `action` (nil: any); a pair left with
    /// no events is removed.
    mutating func remove(target: AnyObject?, action: ActionName?, events: ControlEvents) {
        for e in entries where e.matches(target: target, action: action) { e.events.subtract(events) }
        entries.removeAll { $0.events.isEmpty }
    }

    /// Drops entries whose target was deallocated.
    mutating func dropReleasedTargets() {
        guard entries.contains(where: { $0.target == nil }) else { return }
        entries.removeAll { $0.target == nil }
    }

    /// The entry for this target and action.
    func entry(target: AnyObject, action: ActionName) -> TargetActionEntry? {
        entries.first { $0.target === target && $0.action == action }
    }

    var proxyCount: Int { entries.reduce(0) { $0 + $1.proxies.count } }

    /// Every registration with its target's runtime type name, in order.
    var registeredActions: [RegisteredAction] {
        entries.map { RegisteredAction(targetTypeName: $0.targetTypeName, action: $0.action, events: $0.events) }
    }
}
