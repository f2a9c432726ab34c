import EventModel
import Hooks
import KVCConfig
import ViewIdentity

/// SPOC on any method: the plan's tracked events (`trackedEvents`, config.md §2) whose selector is
/// not a target action but a hookable method of the class (`loginView:handleError:`) are hooked
/// through the aspect registry, by type name, and report a `custom` event with the label.
///
/// A class is checked when the registry knows it (`AspectRegistry.declare`, an object of it
/// created, or a full name the runtime finds): a selector that is neither one of its hook points nor
/// one of its `actionMethods` is a plan error. Target actions need nothing here: the proxies track
/// them. A class the registry does not know yet cannot be checked and is left alone.
extension Tracker {
    /// Hooks the plan's method events in `aspects`; the tokens remove them. Throws every selector
    /// its known class lacks (hooking nothing then).
    public func trackMethods(in aspects: AspectRegistry, clock: any HookClock = SystemHookClock()) throws(ConfigError) -> [AspectToken] {
        var tokens: [AspectToken] = []
        var problems: [ConfigProblem] = []
        for tracked in plan.events {
            guard let type = aspects.knownType(named: tracked.className) else { continue }
            if type.actionMethods.contains(ActionName(tracked.selector)) { continue }
            guard type.hookPoints.contains(where: { $0.method == tracked.selector }) else {
                problems.append(
                    ConfigProblem(
                        code: .unknownMethod, location: tracked.location,
                        expected: "a method of \(tracked.className) (its hookable methods and actions: "
                            + (type.hookPoints.map(\.method) + type.actionMethods.map(\.name)).joined(separator: ", ") + ")",
                        found: "\"\(tracked.selector)\"", className: tracked.className, action: tracked.selector))
                continue
            }
            do {
                tokens.append(
                    try aspects.hook(typeNamed: tracked.className, tracked.selector, position: .after) { [self] invocation in
                        self.reportMethodCall(tracked, on: invocation.instance, at: clock.wallMilliseconds())
                    })
            } catch {
                problems.append(
                    ConfigProblem(
                        code: .unknownMethod, location: tracked.location, expected: "a method that can be hooked",
                        found: "\(error)", className: tracked.className, action: tracked.selector))
            }
        }
        guard problems.isEmpty else {
            for t in tokens { t.remove() }
            throw ConfigError(problems: problems)
        }
        return tokens
    }

    /// The `custom` event of one call: named `Controller#Class#selector` (or the plan's event id, the
    /// code then in `props.code`), with the label; path and page when the object is a view node.
    func reportMethodCall(_ tracked: LabelledEvent, on instance: AnyObject, at ts: Int64) {
        let node = instance as? any ViewNode
        let placement = node.map(ViewPlacement.init(of:))
        let code = EventCode(
            controller: placement?.codeController ?? TypeName.name(tracked.className), target: TypeName.name(tracked.className),
            action: tracked.selector)
        let path = node.map { ViewPath(of: $0).canonical }
        submitMethodCall(at: ts) { ids, shaper in
            var event = TrackEvent(
                id: ids.next(), ts: ts, type: .custom, name: code.description, page: placement?.page, path: path,
                viewId: path.map { ViewID(canonical: $0).hex }, session: ids.prefix)
            if let id = shaper.matcher.eventTable.controlEventID(className: tracked.className, action: tracked.selector) {
                event.props[TrackerProps.code] = .string(event.name)
                event.name = id
            }
            event.props[TrackerProps.label] = .string(tracked.label)
            return event
        }
    }
}
