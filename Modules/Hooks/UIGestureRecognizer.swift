import Interactions

/// Recognises a gesture on its view and sends its actions to targets; hookable like a control.
open class UIGestureRecognizer: UIResponder {
    /// The view the recogniser is attached to: the node its events are about.
    public internal(set) weak var view: UIView?
    var targetActions = TargetActionList()
    open var isEnabled = true

    public override init() {
        super.init()
    }

    /// A recogniser with one action, as UIKit's `init(target:action:)`: `body(target, recognizer)`
    /// runs when the gesture is recognised.
    public convenience init<Target: AnyObject>(
        target: Target, action: ActionName, _ body: @escaping (Target, UIGestureRecognizer) -> Void
    ) {
        self.init()
        addTarget(target as AnyObject, action: action) { t, recognizer in body(t as! Target, recognizer) }
    }

    open override class var hookPoints: [AnyHookPoint] {
        super.hookPoints + [HookPoint.gestureAddTarget.erased, HookPoint.gestureRemoveTarget.erased]
    }

    /// Registers `action` on `target`, calling `body(target, recognizer)` when the gesture is
    /// recognised; the same pair again is one registration.
    public func addTarget(_ target: AnyObject, action: ActionName, invoking body: @escaping (AnyObject, UIGestureRecognizer) -> Void) {
        _ = aspects.invoke(.gestureAddTarget, on: self, arguments: (target, action)) {
            targetActions.add(target: target, action: action, events: .allEvents) { t, s, _ in
                body(t, s as! UIGestureRecognizer)
            }
        }
    }

    /// Removes matching actions: `target` nil means any target, `action` nil any action.
    public func removeTarget(_ target: AnyObject?, action: ActionName?) {
        aspects.invoke(.gestureRemoveTarget, on: self, arguments: (target, action)) {
            targetActions.remove(target: target, action: action, events: .allEvents)
        }
    }

    /// Every registered action with its target's runtime type name.
    public var registeredActions: [RegisteredAction] { targetActions.registeredActions }

    /// How many tracking proxies sit beside the targets.
    public var trackingProxyCount: Int { targetActions.proxyCount }

    /// The number of taps the gesture was recognised with (tap recognisers report it).
    open var recognizedTapCount: Int? { nil }

    /// What the user's gesture does: sends every action, in registration order, when attached and enabled.
    open func recognize() {
        guard isEnabled, view != nil else { return }
        targetActions.dropReleasedTargets()
        for entry in targetActions.entries {
            guard let target = entry.target else { continue }
            for proxy in entry.proxies { proxy.fire(self, .allEvents) }
            entry.body(target, self, .allEvents)
        }
    }

    func removeFromView() {
        view?.removeGestureRecognizer(self)
    }
}

extension HookPoint where Instance == UIGestureRecognizer, Arguments == (AnyObject, ActionName), Result == TargetActionEntry {
    /// An action was registered on a recogniser: `(target, action)`; the result is the registration.
    public static var gestureAddTarget: Self { Self("addTarget:action:") }
}

extension HookPoint where Instance == UIGestureRecognizer, Arguments == (AnyObject?, ActionName?), Result == Void {
    /// Actions were removed from a recogniser: `(target?, action?)`.
    public static var gestureRemoveTarget: Self { Self("removeTarget:action:") }
}

extension UIGestureRecognizer: TargetActionSender {}

extension TargetActionSender where Self: UIGestureRecognizer {
    /// Registers `action` on `target`: `body(target, recognizer)` runs when the gesture is recognised.
    public func addTarget<Target: AnyObject>(_ target: Target, action: ActionName, _ body: @escaping (Target, Self) -> Void) {
        addTarget(target as AnyObject, action: action) { t, recognizer in body(t as! Target, recognizer as! Self) }
    }
}

/// A tap, or several: `numberOfTapsRequired` taps recognise it, and events report the count.
open class UITapGestureRecognizer: UIGestureRecognizer {
    /// How many taps recognise the gesture (1: a single tap, 2: a double tap).
    public var numberOfTapsRequired = 1

    open override var recognizedTapCount: Int? { numberOfTapsRequired }
}

/// A press held down.
open class UILongPressGestureRecognizer: UIGestureRecognizer {}

/// A swipe.
open class UISwipeGestureRecognizer: UIGestureRecognizer {}
