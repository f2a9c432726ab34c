public import Interactions
/// A view that sends actions to targets when the user acts on it (button, switch, slider…).
///
/// Target-action follows UIKit: the same target and action added twice is one registration;
/// `removeTarget` removes only the events it names; nil target or action matches all. `addTarget`,
/// `removeTarget` and `sendAction` are hook points, which is how a hook system places its
/// tracking proxy beside each target without the app's code knowing.
open class UIControl: UIView {
    var targetActions = TargetActionList()
    /// The registration whose action is being sent now: advice on `sendAction` reads it here
    /// instead of looking the target and action up.
    private(set) var sending: TargetActionEntry?
    /// A disabled control sends no actions.
    open var isEnabled = true

    open override class var hookPoints: [AnyHookPoint] {
        super.hookPoints + [
            HookPoint.addTarget.erased, HookPoint.removeTarget.erased, HookPoint.sendAction.erased,
        ]
    }

    /// The value information the control reports with its events; value controls override it.
    open var valueInfo: ControlValue { ControlValue() }

    /// Registers `action` on `target` for `events`, calling `body(target, sender, events)` when sent.
    ///
    /// The untyped form under the typed `addTarget(_:action:for:_:)`; the target is held weakly.
    public func addTarget(
        _ target: AnyObject, action: ActionName, for events: ControlEvents,
        invoking body: @escaping (AnyObject, UIControl, ControlEvents) -> Void
    ) {
        _ = aspects.invoke(.addTarget, on: self, arguments: (target, action, events)) {
            targetActions.add(target: target, action: action, events: events) { t, s, e in body(t, s as! UIControl, e) }
        }
    }

    /// Removes `events` from the matching actions: `target` nil means any target, `action` nil any action.
    public func removeTarget(_ target: AnyObject?, action: ActionName?, for events: ControlEvents = .allEvents) {
        aspects.invoke(.removeTarget, on: self, arguments: (target, action, events)) {
            targetActions.remove(target: target, action: action, events: events)
        }
    }

    /// The targets with at least one action, tracking proxies excluded.
    public var allTargets: [AnyObject] {
        var seen: [AnyObject] = []
        for e in targetActions.entries {
            if let t = e.target, !seen.contains(where: { $0 === t }) { seen.append(t) }
        }
        return seen
    }

    /// The actions registered on `target` for any of `events`.
    public func actions(forTarget target: AnyObject, forControlEvent events: ControlEvents) -> [ActionName] {
        targetActions.entries.filter { $0.target === target && !$0.events.isDisjoint(with: events) }.map(\.action)
    }

    /// Every registered action with its target's runtime type name, in registration order.
    public var registeredActions: [RegisteredAction] { targetActions.registeredActions }

    /// How many tracking proxies sit beside the targets (0 when no hook system watches this control).
    public var trackingProxyCount: Int { targetActions.proxyCount }

    /// Sends the actions registered for any of `events`, in registration order: what a touch does.
    /// Each target's tracking proxies observe first, then `sendAction(_:to:for:)` calls the target.
    open func sendActions(for events: ControlEvents) {
        guard isEnabled else { return }
        targetActions.dropReleasedTargets()
        for entry in targetActions.entries where !entry.events.isDisjoint(with: events) {
            guard let target = entry.target else { continue }
            let fired = events.intersection(entry.events)
            for proxy in entry.proxies { proxy.fire(self, fired) }
            send(entry, to: target, for: fired)
        }
    }

    /// Sends one registered action to its target (hookable, as UIKit's `sendAction:to:forEvent:`);
    /// nothing when `target` has no such action.
    public func sendAction(_ action: ActionName, to target: AnyObject, for events: ControlEvents) {
        guard let entry = targetActions.entry(target: target, action: action) else { return }
        send(entry, to: target, for: events)
    }

    private func send(_ entry: TargetActionEntry, to target: AnyObject, for events: ControlEvents) {
        let outer = sending
        sending = entry
        defer { sending = outer }
        aspects.invoke(.sendAction, on: self, arguments: (entry.action, target, events)) {
            entry.body(target, self, events)
        }
    }
}

extension HookPoint where Instance == UIControl, Arguments == (AnyObject, ActionName, ControlEvents), Result == TargetActionEntry {
    /// An action was registered: `(target, action, events)`; the result is the registration.
    public static var addTarget: Self { Self("addTarget:action:forControlEvents:") }
}

extension HookPoint where Instance == UIControl, Arguments == (AnyObject?, ActionName?, ControlEvents), Result == Void {
    /// Actions were removed: `(target?, action?, events)`.
    public static var removeTarget: Self { Self("removeTarget:action:forControlEvents:") }
}

extension HookPoint where Instance == UIControl, Arguments == (ActionName, AnyObject, ControlEvents), Result == Void {
    /// One action is sent to one target: `(action, target, events)`. Hook systems report here the
    /// registrations their proxies do not watch (targets added before they started).
    public static var sendAction: Self { Self("sendAction:to:forEvent:") }
}

/// One target-action registration, as inventories and configuration checks list them.
public struct RegisteredAction: Sendable, Hashable {
    /// `String(reflecting:)` of the target's type, e.g. `DemoShop.HomeViewController`.
    public var targetTypeName: String
    public var action: ActionName
    public var events: ControlEvents
}

/// What a control or gesture recogniser is: something that sends target-actions.
///
/// Gives the typed `addTarget`, whose closure receives the target and sender with their own types.
public protocol TargetActionSender: AnyObject {}

extension UIControl: TargetActionSender {}

extension TargetActionSender where Self: UIControl {
    /// Registers `action` on `target` for `events`: `body(target, sender)` runs when the control sends it.
    ///
    /// `button.addTarget(self, action: "onFavBtnPressed:", for: .touchUpInside) { home, sender in home.onFavBtnPressed(sender) }`.
    /// The target is held weakly; the closure receives it, so it need not capture it.
    public func addTarget<Target: AnyObject>(
        _ target: Target, action: ActionName, for events: ControlEvents, _ body: @escaping (Target, Self) -> Void
    ) {
        addTarget(target as AnyObject, action: action, for: events) { t, sender, _ in
            body(t as! Target, sender as! Self)
        }
    }
}

/// A button: sends `touchDown` then `touchUpInside` when tapped.
open class UIButton: UIControl {
    public init(title: String? = nil) {
        super.init()
        self.title = title
    }

    /// What a finger's tap does.
    open func tap() {
        sendActions(for: .touchDown)
        sendActions(for: .touchUpInside)
    }
}
