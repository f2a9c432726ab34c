/// One problem the check found, as one stable, greppable line: `<kind> <subject>: <detail>`.
///
/// The subject is `-[Class action]` for an action, `Class` for a class or a page event, and the file
/// for a document of unknown shape.
public struct CheckFinding: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// What kind of problem; the first word of the line.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A class the configuration names that the inventory lacks.
        case missingClass = "missing-class"
        /// An action the configuration names that its class lacks.
        case missingAction = "missing-action"
        /// An action carrying the `_UA` marker that no configuration tracks.
        case untrackedMarker = "untracked-marker"
        case emptyEventID = "empty-event-id"
        case nonStringEventID = "non-string-event-id"
        /// A document that is none of the three shapes.
        case unknownShape = "unknown-shape"
        /// A KVC rule whose view path matches no view of the app's trees (its subject: the rule id).
        case unmatchedRule = "unmatched-rule"
    }

    public var kind: Kind
    public var className: String?
    public var action: String?
    /// Where in the configuration, when the finding comes from it.
    public var location: ConfigLocation?
    public var detail: String

    public init(kind: Kind, className: String?, action: String?, location: ConfigLocation?, detail: String) {
        self.kind = kind
        self.className = className
        self.action = action
        self.location = location
        self.detail = detail
    }

    /// `-[Class action]`, `Class`, or the file.
    public var subject: String {
        guard let className else { return location?.file ?? "" }
        guard let action else { return className }
        return "-[\(className) \(action)]"
    }

    public var description: String { "\(kind.rawValue) \(subject): \(detail)" }

    /// By class, then action (a class's own lines first), then kind, then place.
    public static func < (a: CheckFinding, b: CheckFinding) -> Bool {
        let ka = (a.className ?? "", a.action ?? "", a.kind.rawValue)
        let kb = (b.className ?? "", b.action ?? "", b.kind.rawValue)
        if ka != kb { return ka < kb }
        let la = a.location ?? ConfigLocation(file: "", keyPath: "")
        let lb = b.location ?? ConfigLocation(file: "", keyPath: "")
        if la != lb { return la < lb }
        return a.detail < b.detail
    }
}

/// Checks configuration against the code's inventory (docs/config.md §4), in both directions.
public enum ConfigCheck {
    /// The marker that says "this action is meant to be tracked".
    public static let marker = "_UA"

    /// True when a part of the selector (between colons) ends with `_UA`: `onFavBtnPressed_UA:`.
    public static func carriesMarker(_ action: String) -> Bool {
        action.split(separator: ":").contains { $0.hasSuffix(marker) }
    }

    /// The problem codes that are check findings rather than load errors.
    public static let findingCodes: Set<ConfigProblem.Code> = [.emptyEventID, .nonStringEventID, .unknownShape]

    /// Every finding, sorted: `reading.problems` of the finding codes (the rest are not looked at), and
    /// the comparison of `reading.plan` with `inventory`.
    public static func findings(_ reading: ConfigReading, inventory: Inventory) -> [CheckFinding] {
        var out: [CheckFinding] = []
        // Actions whose entries are wrong are still meant to be tracked: not "untracked" as well.
        var intended: [String: Set<String>] = [:]
        for p in reading.problems where findingCodes.contains(p.code) {
            if let c = p.className, let a = p.action { intended[c, default: []].insert(a) }
            let what = p.action == nil && p.className != nil ? "page \(p.location.keyPath.split(separator: ".").last ?? "") event id" : "event id"
            switch p.code {
            case .emptyEventID:
                out.append(
                    CheckFinding(
                        kind: .emptyEventID, className: p.className, action: p.action, location: p.location,
                        detail: "\(what) at \(p.location) is empty"))
            case .nonStringEventID:
                out.append(
                    CheckFinding(
                        kind: .nonStringEventID, className: p.className, action: p.action, location: p.location,
                        detail: "\(what) at \(p.location) is \(p.found), expected a string"))
            default:
                out.append(
                    CheckFinding(
                        kind: .unknownShape, className: nil, action: nil, location: p.location,
                        detail: "found \(p.found); expected an event table, labelled screens and events, or KVC rules"))
            }
        }
        out += findings(reading.plan, inventory: inventory, alsoTracked: intended)
        return out.sorted()
    }

    /// The comparison of a plan with an inventory, sorted.
    public static func findings(_ plan: TrackingPlan, inventory: Inventory, alsoTracked: [String: Set<String>] = [:]) -> [CheckFinding] {
        // Class → first place configured; (class, action) → first place configured.
        var classes: [String: ConfigLocation] = [:]
        var actions: [String: [String: ConfigLocation]] = [:]
        func note(_ c: String, _ l: ConfigLocation) {
            if let old = classes[c], old <= l { return }
            classes[c] = l
        }
        func note(_ c: String, _ a: String, _ l: ConfigLocation) {
            if let old = actions[c]?[a], old <= l { return }
            actions[c, default: [:]][a] = l
        }
        for (c, e) in plan.eventTable {
            note(c, e.locations[""] ?? e.locations.values.min() ?? ConfigLocation(file: "", keyPath: c))
            for (a, _) in e.controlEvents { note(c, a, e.locations[a] ?? ConfigLocation(file: "", keyPath: c)) }
        }
        for s in plan.screens { note(s.className, s.location) }
        for ev in plan.events {
            note(ev.className, ev.location)
            note(ev.className, ev.selector, ev.location)
        }

        var out: [CheckFinding] = []
        for (c, l) in classes {
            guard let implemented = inventory.classes[c] else {
                out.append(
                    CheckFinding(
                        kind: .missingClass, className: c, action: nil, location: l,
                        detail: "configured at \(l), but the inventory has no such class"))
                continue
            }
            for (a, al) in actions[c] ?? [:] where !implemented.contains(a) {
                out.append(
                    CheckFinding(
                        kind: .missingAction, className: c, action: a, location: al,
                        detail: "configured at \(al), but \(c) in the inventory has no such action"))
            }
        }
        for (c, implemented) in inventory.classes {
            for a in implemented where carriesMarker(a) {
                if actions[c]?[a] != nil || alsoTracked[c]?.contains(a) == true { continue }
                out.append(
                    CheckFinding(
                        kind: .untrackedMarker, className: c, action: a, location: nil,
                        detail: "the action carries the \(marker) marker, but no configuration tracks it"))
            }
        }
        return out.sorted()
    }
}
