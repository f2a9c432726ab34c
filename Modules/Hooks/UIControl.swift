/// A view that sends actions to targets when the user acts on it (button, switch, slider…).
///
/// `addTarget`, `removeTarget` and `sendAction` are hookable (`HookPoint`), which is how the
/// hook system places its tracking proxy beside each target without the app's code knowing.
open class UIControl: UIView {
    var targetActions = TargetActionList()
    /// A disabled control sends no actions.
    open var isEnabled = true

    /// The value information the control reports with its events; value controls override it.
    open var valueInfo: ControlValue { ControlValue() }

    /// Registers `action` on `target` for `events`, calling `body(target, sender, events)` when sent.
    ///
    /// The untyped form under the typed `addTarget(_:action:for:_:)`; the target is held weakly.
    public func addTarget(
        _ target: AnyObject, action: ActionName, for events: ControlEvents,
        invoking body: @escaping (AnyObject, UIControl, ControlEvents) -> Void
    ) {
        let _: TargetActionEntry = aspects.invoke(self, HookPoint.addTarget, arguments: [target, action, events]) {
            targetActions.add(target: target, action: action, events: events) { t, s, e in body(t, s as! UIControl, e) }
        }
    }

    /// Removes matching actions: `target` nil means any target, `action` nil any action.
    public func removeTarget(_ target: AnyObject?, action: ActionName?, for events: ControlEvents = .allEvents) {
        aspects.invoke(self, HookPoint.removeTarget, arguments: [target as Any, action as Any, events]) {
            targetActions.remove(target: target, action: action, events: events)
        }
    }

    /// The targets with at least one action, tracking proxies excluded.
    public var allTargets: [AnyObject] {
        var seen: [AnyObject] = []
        for e in targetActions.registered {
            if let t = e.target, !seen.contains(where: { $0 === t }) { seen.append(t) }
        }
        return seen
    }

    /// The actions registered on `target` for any of `events`.
    public func actions(forTarget target: AnyObject, forControlEvent events: ControlEvents) -> [ActionName] {
        targetActions.registered.filter { $0.target === target && !$0.events.isDisjoint(with: events) }.map(\.action)
    }

    /// Every registered action with its target's runtime type name, in registration order (proxies excluded).
    public var registeredActions: [RegisteredAction] {
        targetActions.registered.map { RegisteredAction(targetTypeName: $0.targetTypeName, action: $0.action, events: $0.events) }
    }

    /// How many tracking proxies sit beside the targets (0 when no hook system watches this control).
    public var trackingProxyCount: Int { targetActions.entries.count - targetActions.registered.count }

    /// Sends the actions registered for any of `events`, in registration order: what a touch does.
    open func sendActions(for events: ControlEvents) {
        guard isEnabled else { return }
        targetActions.dropReleasedTargets()
        targetActions.pruneProxies()
        for entry in targetActions.entries where !entry.events.isDisjoint(with: events) {
            guard let target = entry.target else { continue }
            sendAction(entry, to: target, for: events.intersection(entry.events))
        }
    }

    private func sendAction(_ entry: TargetActionEntry, to target: AnyObject, for events: ControlEvents) {
        aspects.invoke(self, HookPoint.sendAction, arguments: [entry.action, target, events]) {
            entry.body(target, self, events)
        }
    }

    func insertProxy(_ proxy: AnyObject, for partner: TargetActionEntry, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void) {
        targetActions.insertProxy(proxy, for: partner, body: body)
    }

    func pruneProxies() {
        targetActions.pruneProxies()
    }
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
