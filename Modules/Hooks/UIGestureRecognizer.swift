/// Recognises a gesture on its view and sends its actions to targets; hookable like a control.
open class UIGestureRecognizer: UIResponder {
    /// The view the recogniser is attached to: the node its events are about.
    public internal(set) weak var view: UIView?
    var targetActions = TargetActionList()
    open var isEnabled = true

    public override init() {
        super.init()
    }

    /// Registers `action` on `target`, calling `body(target, recognizer)` when the gesture is recognised.
    public func addTarget(_ target: AnyObject, action: ActionName, invoking body: @escaping (AnyObject, UIGestureRecognizer) -> Void) {
        let _: TargetActionEntry = aspects.invoke(self, HookPoint.gestureAddTarget, arguments: [target, action]) {
            targetActions.add(target: target, action: action, events: .allEvents) { t, s, _ in
                body(t, s as! UIGestureRecognizer)
            }
        }
    }

    /// Removes matching actions: `target` nil means any target, `action` nil any action.
    public func removeTarget(_ target: AnyObject?, action: ActionName?) {
        aspects.invoke(self, HookPoint.gestureRemoveTarget, arguments: [target as Any, action as Any]) {
            targetActions.remove(target: target, action: action, events: .allEvents)
        }
    }

    /// Every registered action with its target's runtime type name (proxies excluded).
    public var registeredActions: [RegisteredAction] {
        targetActions.registered.map { RegisteredAction(targetTypeName: $0.targetTypeName, action: $0.action, events: $0.events) }
    }

    /// How many tracking proxies sit beside the targets.
    public var trackingProxyCount: Int { targetActions.entries.count - targetActions.registered.count }

    /// What the user's gesture does: sends every action, in registration order, when attached and enabled.
    open func recognize() {
        guard isEnabled, view != nil else { return }
        targetActions.dropReleasedTargets()
        targetActions.pruneProxies()
        for entry in targetActions.entries {
            guard let target = entry.target else { continue }
            entry.body(target, self, .allEvents)
        }
    }

    func removeFromView() {
        view?.removeGestureRecognizer(self)
    }

    func insertProxy(_ proxy: AnyObject, for partner: TargetActionEntry, body: @escaping (AnyObject, AnyObject, ControlEvents) -> Void) {
        targetActions.insertProxy(proxy, for: partner, body: body)
    }

    func pruneProxies() {
        targetActions.pruneProxies()
    }
}

extension UIGestureRecognizer: TargetActionSender {}

extension TargetActionSender where Self: UIGestureRecognizer {
    /// Registers `action` on `target`: `body(target, recognizer)` runs when the gesture is recognised.
    public func addTarget<Target: AnyObject>(_ target: Target, action: ActionName, _ body: @escaping (Target, Self) -> Void) {
        addTarget(target as AnyObject, action: action) { t, recognizer in body(t as! Target, recognizer as! Self) }
    }
}

/// A single tap.
open class UITapGestureRecognizer: UIGestureRecognizer {}

/// A press held down.
open class UILongPressGestureRecognizer: UIGestureRecognizer {}

/// A swipe.
open class UISwipeGestureRecognizer: UIGestureRecognizer {}
