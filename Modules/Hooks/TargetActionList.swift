/// One registered target-action pair (or a tracking proxy placed beside one).
final class TargetActionEntry {
    /// Identifies the entry, so a proxy can name its partner.
    let serial: UInt64
    private(set) weak var target: AnyObject?
    let targetTypeName: String
    let action: ActionName
    let events: ControlEvents
    /// Calls the action on the target with the sender and the events that fired.
    let body: (AnyObject, AnyObject, ControlEvents) -> Void
    /// For a proxy: the serial of the entry it shadows.
    let partner: UInt64?
    /// A proxy is owned by its entry, since nothing else keeps it alive.
    let ownedTarget: AnyObject?

    init(
        serial: UInt64, target: AnyObject, action: ActionName, events: ControlEvents, partner: UInt64? = nil,
        owned: Bool = false, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void
    ) {
        self.serial = serial
        self.target = target
        self.targetTypeName = String(reflecting: type(of: target))
        self.action = action
        self.events = events
        self.partner = partner
        self.ownedTarget = owned ? target : nil
        self.body = body
    }

    var isProxy: Bool { partner != nil }
}

/// The target-action pairs of a control or gesture recogniser, in registration order.
struct TargetActionList {
    private(set) var entries: [TargetActionEntry] = []
    private var nextSerial: UInt64 = 1

    mutating func add(
        target: AnyObject, action: ActionName, events: ControlEvents, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void
    ) -> TargetActionEntry {
        let entry = TargetActionEntry(serial: nextSerial, target: target, action: action, events: events, body: body)
        nextSerial += 1
        entries.append(entry)
        return entry
    }

    /// Places a proxy just before the entry it shadows, so it observes the interaction before the
    /// real action changes anything (values are read as the user saw them).
    mutating func insertProxy(
        _ proxy: AnyObject, for partner: TargetActionEntry, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void
    ) {
        guard let i = entries.firstIndex(where: { $0 === partner }) else { return }
        let entry = TargetActionEntry(
            serial: nextSerial, target: proxy, action: partner.action, events: partner.events, partner: partner.serial,
            owned: true, body: body)
        nextSerial += 1
        entries.insert(entry, at: i)
    }

    /// Removes real entries matching `target` (nil: any) and `action` (nil: any) for any of `events`.
    mutating func remove(target: AnyObject?, action: ActionName?, events: ControlEvents) {
        entries.removeAll { e in
            !e.isProxy && (target == nil || e.target === target) && (action == nil || e.action == action)
                && !e.events.isDisjoint(with: events)
        }
    }

    /// Removes proxies whose partner is gone.
    /// Runs on every send, so it first checks without allocating: lists hold a handful of entries.
    mutating func pruneProxies() {
        func orphan(_ e: TargetActionEntry) -> Bool {
            guard let p = e.partner else { return false }
            return !entries.contains { $0.serial == p }
        }
        guard entries.contains(where: orphan) else { return }
        let orphans = entries.filter(orphan).map { ObjectIdentifier($0) }
        entries.removeAll { orphans.contains(ObjectIdentifier($0)) }
    }

    /// Drops real entries whose target was deallocated.
    mutating func dropReleasedTargets() {
        guard entries.contains(where: { !$0.isProxy && $0.target == nil }) else { return }
        entries.removeAll { !$0.isProxy && $0.target == nil }
    }

    /// The real (not proxy) entries.
    var registered: [TargetActionEntry] { entries.filter { !$0.isProxy } }

    func partner(of proxy: TargetActionEntry) -> TargetActionEntry? {
        guard let p = proxy.partner else { return nil }
        return entries.first { $0.serial == p }
    }
}
