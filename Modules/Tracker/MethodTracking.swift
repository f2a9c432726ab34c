import EventModel
import Hooks
import KVCConfig
import Matching
import ViewIdentity

/// SPOC on any method: the plan's tracked events (`trackedEvents`, docs/config.md §2) whose selector is
/// not a target action but a hookable method of the class (`loginView:handleError:`) are hooked
/// through the aspect registry, by type name, and report a `custom` event with the label.
///
/// A class is checked when the registry knows it (`AspectRegistry.declare`, an object of it
/// created, or a full name the runtime finds): a selector that is neither one of its hook points nor
/// one of its `actionMethods` is a plan error. Target actions need nothing here: the proxies track
/// them. A class the registry does not know yet cannot be checked and is left alone.
extension Tracker {
    /// Hooks the plan's method events in `aspects` (call it once the plan is loaded); the tokens
    /// remove them. Throws every selector its known class lacks, hooking nothing then.
    public func trackMethods(in aspects: AspectRegistry) throws(ConfigError) -> [AspectToken] {
        let plan = self.plan
        let table = EventTable(plan: plan)
        var tokens: [AspectToken] = []
        var problems: [ConfigProblem] = []
        for tracked in plan.events {
            guard let type = aspects.knownType(named: tracked.className) else { continue }
            if type.actionMethods.contains(ActionName(tracked.selector)) { continue }
            let methods = type.hookPoints.map { $0.method }
            guard methods.contains(tracked.selector) else {
                let known = (methods + type.actionMethods.map { $0.name }).joined(separator: ", ")
                problems.append(
                    ConfigProblem(
                        code: .unknownMethod, location: tracked.location,
                        expected: "a method of \(tracked.className) (its hookable methods and actions: \(known))",
                        found: "\"\(tracked.selector)\"", className: tracked.className, action: tracked.selector))
                continue
            }
            let eventID = table.controlEventID(className: tracked.className, action: tracked.selector)
            do {
                tokens.append(
                    try aspects.hook(typeNamed: tracked.className, tracked.selector, position: .after) { [self] invocation in
                        self.reportMethodCall(tracked, eventID: eventID, on: invocation.instance)
                    })
            } catch {
                problems.append(
                    ConfigProblem(
                        code: .unknownMethod, location: tracked.location, expected: "a method that can be hooked",
                        found: String(describing: error), className: tracked.className, action: tracked.selector))
            }
        }
        guard problems.isEmpty else {
            for t in tokens { t.remove() }
            throw ConfigError(problems: problems)
        }
        return tokens
    }

    /// The `custom` event of one call: named by the plan's event id when there is one, else
    /// `Controller#Class#selector` (docs/viewpath.md §4's shape; the controller of a view's placement,
    /// the class itself otherwise); `props.code` holds that code, `props.label` the label.
    func reportMethodCall(_ tracked: LabelledEvent, eventID: String?, on instance: AnyObject) {
        let className = TypeName.name(tracked.className)
        let controller = (instance as? any ViewNode).map { ViewPlacement(of: $0).codeController } ?? className
        let code = EventCode(controller: controller, target: className, action: tracked.selector).description
        var props = JSONObject()
        props[TrackerProps.code] = .string(code)
        props[TrackerProps.label] = .string(tracked.label)
        _ = try? track(name: eventID ?? code, props: props)
    }
}
