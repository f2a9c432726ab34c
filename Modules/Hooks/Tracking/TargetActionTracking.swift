import Interactions
import ViewIdentity

/// Controls: a tracking proxy beside every target added while running (it reports just before the
/// target runs, so values are read as the user saw them); a registration made before the start
/// falls back on the `sendAction:to:forEvent:` hook point, whose advice reports exactly the
/// registrations this system's proxy does not watch, so each send is reported once.
enum TargetActionTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let placing = try system.advise(.addTarget, .after) { system, call in
            guard let entry = call.returnValue else { return }
            entry.place(proxy(for: entry, system: system))
        }
        // The fast path, asked before the call is built: a registration with this system's proxy
        // was reported by the proxy, so the advice does not apply.
        let identity = system.identity
        let fallback = try system.advise(.sendAction, .before, when: { control in
            control.sending.map { !$0.hasProxy(of: identity) } ?? false
        }) { system, call in
            guard let entry = call.instance.sending else { return }
            let events = call.arguments.2
            report(call.instance, targetName: TypeName.name(entry.targetTypeName), action: entry.action, events: events, system: system)
        }
        return [placing, fallback]
    }

    private static func proxy(for entry: TargetActionEntry, system: HookSystem) -> TrackingProxy {
        let targetName = TypeName.name(entry.targetTypeName)
        let action = entry.action
        return TrackingProxy(owner: system.identity) { [weak system] sender, events in
            guard let system, let control = sender as? UIControl else { return }
            report(control, targetName: targetName, action: action, events: events, system: system)
        }
    }

    static func report(_ control: UIControl, targetName: String, action: ActionName, events: ControlEvents, system: HookSystem) {
        guard system.isRunning else { return }
        let value = control.valueInfo
        system.report(
            Interaction.targetAction(
                events.contains(.valueChanged) ? .valueChanged : .click, on: control, targetName: targetName,
                action: action.name, controlEvents: events, value: value.isEmpty ? nil : value,
                timestamp: system.clock.wallMilliseconds(), pageOf: eventPage))
    }
}

/// Gesture recognisers: a tracking proxy beside every target; a `gesture` on the recogniser's view.
enum GestureTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let placing = try system.advise(.gestureAddTarget, .after) { system, call in
            guard let entry = call.returnValue else { return }
            let targetName = TypeName.name(entry.targetTypeName)
            let action = entry.action.name
            entry.place(
                TrackingProxy(owner: system.identity) { [weak system] sender, _ in
                    guard let system, system.isRunning, let recognizer = sender as? UIGestureRecognizer,
                        let view = recognizer.view
                    else { return }
                    system.report(
                        Interaction.targetAction(
                            .gesture, on: view, targetName: targetName, action: action, gesture: recognizer.baseName,
                            tapCount: recognizer.recognizedTapCount, timestamp: system.clock.wallMilliseconds(),
                            pageOf: eventPage))
                })
        }
        return [placing]
    }
}

/// The page of interactions inside `controller`: its own name when it is a page; for a controller
/// that is no page (a navigation or tab bar controller's bar, an alert), the page it shows or was
/// presented by.
func eventPage(_ controller: any ViewNode) -> String? {
    guard let c = controller as? UIViewController, !c.isPage else { return controller.pathName }
    return c.eventPage
}
