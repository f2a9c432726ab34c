import EventModel
public import Interactions
public import KVCConfig
import Matching
import Synchronization
import ViewIdentity

/// SPOC on any method: the plan's tracked events (`trackedEvents`, docs/config.md §2) whose selector is
/// not a target action but a hookable method of the class (`loginView:handleError:`) report a
/// `custom` event with the label when called.
///
/// The tracker is the hooks' `TrackedMethodSource`: each toolkit's hook system hooks the plan's
/// methods on the classes it knows, and again whenever a plan is swapped in (`load(_:)`, remote
/// rules through `apply(_:)`), so a swap never reports a call twice. A method a hook system refuses
/// (a known class without it) is a plan error, reported once as a `method_rejected` event (and on
/// standard error) while the plan names it.
struct MethodRefusals {
    /// What each place (a registry, a runtime) refuses now.
    var byPlace: [ObjectIdentifier: [TrackedMethod: MethodRefusal]] = [:]
    var listeners: [@Sendable () -> Void] = []
}

extension Tracker: TrackedMethodSource {
    public var trackedMethods: Set<TrackedMethod> {
        Set(plan.events.map { TrackedMethod(className: $0.className, selector: $0.selector) })
    }

    /// The plan errors among the tracked methods, in the places this tracker's hooks run.
    public var methodProblems: [ConfigProblem] {
        let plan = self.plan
        return methodRefusals.withLock { r in
            r.byPlace.values.flatMap { refusals in
                refusals.compactMap { method, refusal in Tracker.problem(method, refusal, in: plan)?.1 }
            }
        }
    }

    public func onTrackedMethodsChange(_ body: @escaping @Sendable () -> Void) {
        methodRefusals.withLock { $0.listeners.append(body) }
    }

    /// After a plan swap: every hook system hooking tracked methods looks at the new plan.
    func trackedMethodsChanged() {
        for listener in methodRefusals.withLock({ $0.listeners }) { listener() }
    }

    public func trackedMethodsRefused(_ refusals: [TrackedMethod: MethodRefusal], in place: ObjectIdentifier) {
        let plan = self.plan
        let fresh = methodRefusals.withLock { r -> [(LabelledEvent, ConfigProblem)] in
            let before = r.byPlace[place] ?? [:]
            r.byPlace[place] = refusals.isEmpty ? nil : refusals
            return refusals.compactMap { method, refusal in
                before[method] == nil ? Tracker.problem(method, refusal, in: plan) : nil
            }
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

    /// The plan's entry for a refused method, and the plan error it is; nil when the plan no longer names it.
    private static func problem(
        _ method: TrackedMethod, _ refusal: MethodRefusal, in plan: TrackingPlan
    ) -> (LabelledEvent, ConfigProblem)? {
        guard let tracked = plan.events.first(where: { $0.className == method.className && $0.selector == method.selector })
        else { return nil }
        let problem = ConfigProblem(
            code: .unknownMethod, location: tracked.location, expected: refusal.expected, found: refusal.found,
            className: tracked.className, action: tracked.selector)
        return (tracked, problem)
    }

    /// The `custom` event of one call, as the plan in use names it: by the plan's event id when
    /// there is one, else `Controller#Class#selector` (docs/viewpath.md §4's shape; the controller of
    /// a view's placement, the class itself otherwise); `props.code` holds that code, `props.label`
    /// the entry's (first) label.
    public func trackedMethodCalled(_ method: TrackedMethod, on instance: AnyObject) {
        let table = shaper.matcher.eventTable
        // Gone from the plan since the call started: nothing to report.
        guard let label = table.eventLabels(className: method.className, selector: method.selector).first else { return }
        let className = TypeName.name(method.className)
        let controller = (instance as? any ViewNode).map { ViewPlacement(of: $0).codeController } ?? className
        let code = EventCode(controller: controller, target: className, action: method.selector).description
        var props = JSONObject()
        props[TrackerProps.code] = .string(code)
        props[TrackerProps.label] = .string(label)
        let eventID = table.controlEventID(className: method.className, action: method.selector)
        _ = try? track(name: eventID ?? code, props: props)
    }
}
