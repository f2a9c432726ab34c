public import KVCConfig

/// A class, or a class's action, that the inventory of the code might call by a new name.
public struct ActionCandidate: Sendable, Hashable {
    public var className: String
    /// Nil for a class (a page or screen entry).
    public var action: String?
    public var score: Double

    public init(className: String, action: String?, score: Double) {
        self.className = className
        self.action = action
        self.score = score
    }

    /// `-[Class action]` or `Class`.
    public var subject: String { action.map { "-[\(className) \($0)]" } ?? className }
}

/// A class or action the configuration names that the inventory lacks, with where it may have gone.
public struct ActionDrift: Sendable, Hashable {
    public var className: String
    /// Nil when the class itself is missing.
    public var action: String?
    public var location: ConfigLocation
    /// The renamed class or action, when the best candidate is clearly ahead (docs/drift.md).
    public var suggestion: ActionCandidate?
    /// Best first, at most `ActionRenames.candidateLimit`.
    public var candidates: [ActionCandidate]

    public init(className: String, action: String?, location: ConfigLocation, suggestion: ActionCandidate?, candidates: [ActionCandidate]) {
        self.className = className
        self.action = action
        self.location = location
        self.suggestion = suggestion
        self.candidates = candidates
    }

    /// `-[Class action]` or `Class`.
    public var subject: String { action.map { "-[\(className) \($0)]" } ?? className }
}

/// Renamed classes and actions of the event table and the labels (docs/config.md §1, §2), found in the
/// inventory by name (docs/drift.md): a class is a candidate when its name similarity to the
/// configured class is at least `classThreshold`; an action when, in addition, its name similarity
/// to the configured action is at least `actionThreshold` and it takes as many arguments (colons).
/// An action's score is the mean of the two similarities; a class's is its similarity. The best is
/// suggested when it is `margin` ahead of the second. Actions the configuration already tracks on
/// that class, and (for a missing class) classes the configuration names itself, are never candidates.
public enum ActionRenames {
    public static let classThreshold = 0.7
    public static let actionThreshold = 0.6
    public static let margin = 0.10
    public static let candidateLimit = 3

    /// Every missing class and action (as the check finds them, and the configured actions of a
    /// missing class), in the check's order, each with candidates.
    public static func check(_ plan: TrackingPlan, inventory: Inventory) -> [ActionDrift] {
        var configured: [String: Set<String>] = [:]
        var actionsOf: [String: [(String, ConfigLocation)]] = [:]
        for (c, e) in plan.eventTable {
            for a in e.controlEvents.keys {
                configured[c, default: []].insert(a)
                actionsOf[c, default: []].append((a, e.locations[a] ?? ConfigLocation(file: "", keyPath: c)))
            }
        }
        for ev in plan.events {
            configured[ev.className, default: []].insert(ev.selector)
            actionsOf[ev.className, default: []].append((ev.selector, ev.location))
        }
        var classes = Set(plan.eventTable.keys)
        classes.formUnion(plan.screens.map(\.className))
        classes.formUnion(plan.events.map(\.className))
        var out: [ActionDrift] = []
        for f in ConfigCheck.findings(plan, inventory: inventory) {
            guard let className = f.className, let location = f.location else { continue }
            switch f.kind {
            case .missingClass:
                out.append(
                    drift(
                        className: className, action: nil, location: location, inventory: inventory, configured: configured,
                        configuredClasses: classes))
                // The check stops at the class; its actions are missing too, and may have moved with it.
                var seen: Set<String> = []
                for (a, l) in (actionsOf[className] ?? []).sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) where seen.insert(a).inserted {
                    out.append(drift(className: className, action: a, location: l, inventory: inventory, configured: configured))
                }
            case .missingAction:
                out.append(drift(className: className, action: f.action, location: location, inventory: inventory, configured: configured))
            default:
                continue
            }
        }
        return out
    }

    static func drift(
        className: String, action: String?, location: ConfigLocation, inventory: Inventory, configured: [String: Set<String>],
        configuredClasses: Set<String> = []
    ) -> ActionDrift {
        var ranked: [ActionCandidate] = []
        for (c, actions) in inventory.classes {
            let classScore = NameSimilarity.of(className, c)
            guard classScore >= classThreshold else { continue }
            guard let action else {
                if !configuredClasses.contains(c) { ranked.append(ActionCandidate(className: c, action: nil, score: rounded(classScore))) }
                continue
            }
            let arity = action.filter { $0 == ":" }.count
            for a in actions where a.filter({ $0 == ":" }).count == arity && configured[c]?.contains(a) != true {
                let actionScore = NameSimilarity.of(action, a)
                guard actionScore >= actionThreshold else { continue }
                ranked.append(ActionCandidate(className: c, action: a, score: rounded((classScore + actionScore) / 2)))
            }
        }
        ranked.sort { $0.score != $1.score ? $0.score > $1.score : ($0.className, $0.action ?? "") < ($1.className, $1.action ?? "") }
        var suggestion: ActionCandidate?
        if let first = ranked.first, first.score - (ranked.dropFirst().first?.score ?? 0) >= margin - 1e-9 {
            suggestion = first
        }
        return ActionDrift(
            className: className, action: action, location: location, suggestion: suggestion,
            candidates: Array(ranked.prefix(candidateLimit)))
    }

    static func rounded(_ x: Double) -> Double { (x * 100).rounded() / 100 }
}
