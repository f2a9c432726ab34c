import ViewIdentity

/// Adds configuration entries one by one, keeping the first of each and recording every conflict with both places.
///
/// The same value given twice (the same event id for the same class and action in two files) is not a
/// conflict; two different values are. Rule ids are unique: a repeated id is always a conflict.
struct PlanBuilder {
    var plan = TrackingPlan()
    var problems: [ConfigProblem] = []
    private var screenIndex: [String: Int] = [:]
    private var eventIndex: [SelectorKey: Int] = [:]
    private var ruleIndex: [String: Int] = [:]
    private var ignoreIndex: Set<PathPattern> = []

    private struct SelectorKey: Hashable {
        var className: String
        var selector: String
    }

    init() {}

    mutating func addPage(className: String, which: String, id: String, location: ConfigLocation) {
        var entry = plan.eventTable[className] ?? ClassEvents(className: className)
        let existing = which == "Enter" ? entry.pageEnter : entry.pageLeave
        if let existing {
            if existing != id {
                let other = entry.locations[which] ?? ConfigLocation(file: "", keyPath: "")
                problems.append(
                    ConfigProblem(
                        code: .conflict, location: location,
                        expected: "one page \(which) event id for \(className)",
                        found: "\"\(id)\" here and \"\(existing)\"", otherLocation: other, className: className))
            }
            return
        }
        if which == "Enter" { entry.pageEnter = id } else { entry.pageLeave = id }
        entry.locations[which] = location
        plan.eventTable[className] = entry
    }

    mutating func addControl(className: String, action: String, id: String, location: ConfigLocation) {
        var entry = plan.eventTable[className] ?? ClassEvents(className: className)
        if let existing = entry.controlEvents[action] {
            if existing != id {
                let other = entry.locations[action] ?? ConfigLocation(file: "", keyPath: "")
                problems.append(
                    ConfigProblem(
                        code: .conflict, location: location,
                        expected: "one event id for -[\(className) \(action)]",
                        found: "\"\(id)\" here and \"\(existing)\"", otherLocation: other, className: className,
                        action: action))
            }
            return
        }
        entry.controlEvents[action] = id
        entry.locations[action] = location
        plan.eventTable[className] = entry
    }

    /// Registers a class with no events yet, so that an entry of an empty table still names its class.
    mutating func addClass(_ className: String, location: ConfigLocation?) {
        var entry = plan.eventTable[className] ?? ClassEvents(className: className)
        if entry.locations[""] == nil, let location { entry.locations[""] = location }
        plan.eventTable[className] = entry
    }

    mutating func addScreen(_ s: LabelledScreen) {
        if let i = screenIndex[s.className] {
            let first = plan.screens[i]
            if first.label != s.label {
                problems.append(
                    ConfigProblem(
                        code: .conflict, location: s.location, expected: "one label for the screen \(s.className)",
                        found: "\"\(s.label)\" here and \"\(first.label)\"", otherLocation: first.location,
                        className: s.className))
            }
            return
        }
        screenIndex[s.className] = plan.screens.count
        plan.screens.append(s)
    }

    mutating func addEvent(_ e: LabelledEvent) {
        let key = SelectorKey(className: e.className, selector: e.selector)
        if let i = eventIndex[key] {
            let first = plan.events[i]
            if first.label != e.label {
                problems.append(
                    ConfigProblem(
                        code: .conflict, location: e.location,
                        expected: "one label for -[\(e.className) \(e.selector)]",
                        found: "\"\(e.label)\" here and \"\(first.label)\"", otherLocation: first.location,
                        className: e.className, action: e.selector))
            }
            return
        }
        eventIndex[key] = plan.events.count
        plan.events.append(e)
    }

    mutating func addRule(_ r: KVCRule, idLocation: ConfigLocation? = nil) {
        if let i = ruleIndex[r.id] {
            let first = plan.rules[i]
            problems.append(
                ConfigProblem(
                    code: .conflict, location: idLocation ?? r.location.appending("id"), expected: "a rule id used once",
                    found: "\"\(r.id)\" again", otherLocation: first.location.appending("id")))
            return
        }
        ruleIndex[r.id] = plan.rules.count
        plan.rules.append(r)
    }

    /// Adds an `ignore` pattern; the same pattern again (in any file) is kept once.
    mutating func addIgnore(_ i: IgnorePattern) {
        guard ignoreIndex.insert(i.pattern).inserted else { return }
        plan.ignore.append(i)
    }

    /// Adds everything in `other`, in a fixed order: classes by name (Enter, Leave, then actions by name),
    /// then screens, events, rules and ignore patterns in their order.
    mutating func add(_ other: TrackingPlan) {
        for className in other.eventTable.keys.sorted() {
            let e = other.eventTable[className]!
            addClass(className, location: e.locations[""])
            let none = ConfigLocation(file: "", keyPath: "")
            if let id = e.pageEnter { addPage(className: className, which: "Enter", id: id, location: e.locations["Enter"] ?? none) }
            if let id = e.pageLeave { addPage(className: className, which: "Leave", id: id, location: e.locations["Leave"] ?? none) }
            for action in e.controlEvents.keys.sorted() {
                addControl(className: className, action: action, id: e.controlEvents[action]!, location: e.locations[action] ?? none)
            }
        }
        for s in other.screens { addScreen(s) }
        for e in other.events { addEvent(e) }
        for r in other.rules { addRule(r) }
        for i in other.ignore { addIgnore(i) }
    }
}

extension ConfigLocation {
    /// The location of the member `key` of the value here.
    func appending(_ key: String) -> ConfigLocation {
        var l = self
        l.keyPath = keyPath.isEmpty ? key : keyPath + "." + key
        return l
    }
}
