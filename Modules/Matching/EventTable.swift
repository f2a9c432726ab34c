public import KVCConfig
import ViewIdentity

/// The event table and the labels of a plan, looked up by class (docs/config.md §1, §2).
///
/// Class names are looked up as given, then without their module prefix, so both
/// `HomeViewController` and the reflected `Shop.HomeViewController` find a configured
/// `HomeViewController`. A page's name with its alias, `GtkBox(page1)`, is looked up so first,
/// then as its type name `GtkBox` (docs/config.md §1), so pages sharing a class have ids of their own.
public struct EventTable: Sendable {
    private let classes: [String: ClassEvents]
    private let screenLabels: [String: [String]]
    private let eventLabels: [String: [String: [String]]]

    public init(plan: TrackingPlan) {
        classes = plan.eventTable
        var screens: [String: [String]] = [:]
        for s in plan.screens { screens[s.className, default: []].append(s.label) }
        var events: [String: [String: [String]]] = [:]
        for e in plan.events { events[e.className, default: [:]][e.selector, default: []].append(e.label) }
        screenLabels = screens
        eventLabels = events
    }

    private func lookup<T>(_ table: [String: T], _ className: String) -> T? {
        // A plan without this table (only rules, say) hashes no name.
        if table.isEmpty { return nil }
        if let v = lookupType(table, className) { return v }
        guard className.hasSuffix(")"), let open = className.firstIndex(of: "("), open != className.startIndex else { return nil }
        return lookupType(table, String(className[..<open]))
    }

    private func lookupType<T>(_ table: [String: T], _ className: String) -> T? {
        if let v = table[className] { return v }
        let stripped = TypeName.stripModulePrefix(className)
        return stripped == className ? nil : table[stripped]
    }

    /// The page event id for a controller of `className` appearing (`enter`) or disappearing.
    public func pageEventID(className: String, enter: Bool) -> String? {
        guard let c = lookup(classes, className) else { return nil }
        return enter ? c.pageEnter : c.pageLeave
    }

    /// The control event id for `action` sent to a target of `className`.
    public func controlEventID(className: String, action: String) -> String? {
        lookup(classes, className)?.controlEvents[action]
    }

    /// Labels of the screen `className`, in load order.
    public func screenLabels(className: String) -> [String] {
        lookup(screenLabels, className) ?? []
    }

    /// Labels of `selector` on `className`, in load order.
    public func eventLabels(className: String, selector: String) -> [String] {
        lookup(eventLabels, className)?[selector] ?? []
    }
}
