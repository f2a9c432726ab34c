import EventModel
import Hooks
import KVCConfig
import Matching
import ViewIdentity

/// SPOC on any method: the plan's tracked events (`trackedEvents`, docs/config.md §2) whose selector is
/// not a target action but a hookable method of the class (`loginView:handleError:`) are hooked
/// through the aspect registry, by type name, and report a `custom` event with the label.
///
/// No call is needed: a tracker hooks them in every registry it observes (a `HookSystem` reporting
/// to it started there: `hooksStarted(in:)`), and again whenever a plan is swapped in (`load(_:)`,
/// remote rules through `apply(_:)`): entries the new plan adds are hooked, entries it no longer has
/// unhooked, so a swap never reports a call twice. A class is checked when the registry knows it
/// (`AspectRegistry.declare`, an object of it created, or a full name the runtime finds): a selector
/// that is neither one of its hook points nor one of its `actionMethods` is a plan error, reported
/// once as a `method_rejected` event (and on standard error) while the plan names it. Target actions
/// need nothing here: the proxies track them. A class the registry does not know yet is left alone.
struct MethodHooks {
    /// One tracked method: the class as the plan names it, and the selector.
    struct Key: Hashable {
        var className: String
        var selector: String
    }

    /// What is hooked in one registry.
    struct Attachment {
        let registry: AspectRegistry
        /// Hook systems reporting to the tracker that run in this registry.
        var users = 0
        var tokens: [Key: AspectToken] = [:]
        /// Plan errors found here, reported once each while the plan has them.
        var problems: [Key: ConfigProblem] = [:]
    }

    var attachments: [ObjectIdentifier: Attachment] = [:]
}

extension Tracker {
    /// The plan errors among the tracked methods, in the registries this tracker observes.
    public var methodProblems: [ConfigProblem] {
        methodHooks.withLock { m in m.attachments.values.flatMap { $0.problems.values } }
    }

    func attachMethodHooks(to aspects: AspectRegistry) {
        methodHooks.withLock { m in
            m.attachments[ObjectIdentifier(aspects), default: MethodHooks.Attachment(registry: aspects)].users += 1
        }
    }

    func detachMethodHooks(from aspects: AspectRegistry) {
        let tokens = methodHooks.withLock { m -> [AspectToken] in
            let id = ObjectIdentifier(aspects)
            guard var a = m.attachments[id] else { return [] }
            a.users -= 1
            guard a.users == 0 else {
                m.attachments[id] = a
                return []
            }
            m.attachments[id] = nil
            return Array(a.tokens.values)
        }
        for t in tokens { t.remove() }
    }

    /// Makes the hooks of every observed registry those of the plan in use; reports new plan errors.
    func syncMethodHooks() {
        let plan = self.plan
        let fresh = methodHooks.withLock { m -> [(LabelledEvent, ConfigProblem)] in
            var fresh: [(LabelledEvent, ConfigProblem)] = []
            for (id, var a) in m.attachments {
                var (wanted, problems) = Tracker.methodEvents(of: plan, in: a.registry)
                for (key, token) in a.tokens where wanted[key] == nil {
                    token.remove()
                    a.tokens[key] = nil
                }
                for (key, tracked) in wanted where a.tokens[key] == nil {
                    do {
                        a.tokens[key] = try a.registry.hook(typeNamed: key.className, key.selector, position: .after) {
                            [weak self] invocation in
                            self?.reportMethodCall(key, on: invocation.instance)
                        }
                    } catch {
                        problems[key] = (
                            tracked,
                            ConfigProblem(
                                code: .unknownMethod, location: tracked.location, expected: "a method that can be hooked",
                                found: String(describing: error), className: tracked.className, action: tracked.selector)
                        )
                    }
                }
                for (key, problem) in problems where a.problems[key] == nil { fresh.append(problem) }
                a.problems = problems.mapValues(\.1)
                m.attachments[id] = a
            }
            return fresh
        }
        for (tracked, problem) in fresh {
            AgentDiagnostics.write("\(problem); the method is not tracked")
            var props = JSONObject()
            props["class"] = .string(tracked.className)
            props["selector"] = .string(tracked.selector)
            props["label"] = .string(tracked.label)
            props["problem"] = .string(problem.description)
            reportDiagnostic(name: "method_rejected", props: props) { $0.rejectedMethods += 1 }
        }
    }

    /// The plan's entries to hook in `aspects` (known class, a hook point that is not a target
    /// action), and the plan errors (known class, no such method).
    static func methodEvents(
        of plan: TrackingPlan, in aspects: AspectRegistry
    ) -> (wanted: [MethodHooks.Key: LabelledEvent], problems: [MethodHooks.Key: (LabelledEvent, ConfigProblem)]) {
        var wanted: [MethodHooks.Key: LabelledEvent] = [:]
        var problems: [MethodHooks.Key: (LabelledEvent, ConfigProblem)] = [:]
        for tracked in plan.events {
            guard let type = aspects.knownType(named: tracked.className) else { continue }
            if type.actionMethods.contains(ActionName(tracked.selector)) { continue }
            let key = MethodHooks.Key(className: tracked.className, selector: tracked.selector)
            let methods = type.hookPoints.map { $0.method }
            guard methods.contains(tracked.selector) else {
                let known = (methods + type.actionMethods.map { $0.name }).joined(separator: ", ")
                problems[key] = (
                    tracked,
                    ConfigProblem(
                        code: .unknownMethod, location: tracked.location,
                        expected: "a method of \(tracked.className) (its hookable methods and actions: \(known))",
                        found: "\"\(tracked.selector)\"", className: tracked.className, action: tracked.selector)
                )
                continue
            }
            if wanted[key] == nil { wanted[key] = tracked }
        }
        return (wanted, problems)
    }

    /// The `custom` event of one call, as the plan in use names it: by the plan's event id when
    /// there is one, else `Controller#Class#selector` (docs/viewpath.md §4's shape; the controller of
    /// a view's placement, the class itself otherwise); `props.code` holds that code, `props.label`
    /// the entry's (first) label.
    func reportMethodCall(_ key: MethodHooks.Key, on instance: AnyObject) {
        let table = shaper.matcher.eventTable
        // Gone from the plan since the call started: nothing to report.
        guard let label = table.eventLabels(className: key.className, selector: key.selector).first else { return }
        let className = TypeName.name(key.className)
        let controller = (instance as? any ViewNode).map { ViewPlacement(of: $0).codeController } ?? className
        let code = EventCode(controller: controller, target: className, action: key.selector).description
        var props = JSONObject()
        props[TrackerProps.code] = .string(code)
        props[TrackerProps.label] = .string(label)
        let eventID = table.controlEventID(className: key.className, action: key.selector)
        _ = try? track(name: eventID ?? code, props: props)
    }
}
