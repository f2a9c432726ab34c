/// One method a tracking plan tracks beyond interactions (docs/hooks.md "SPOC on any method"): a
/// class as the plan names it, and a selector that is not one of its target actions.
public struct TrackedMethod: Hashable, Sendable, CustomStringConvertible {
    public var className: String
    public var selector: String

    public init(className: String, selector: String) {
        self.className = className
        self.selector = selector
    }

    public var description: String { "\(className).\(selector)" }
}

/// Why a hook system does not hook a tracked method: what it expected, and what it found.
public struct MethodRefusal: Hashable, Sendable {
    public var expected: String
    public var found: String

    public init(expected: String, found: String) {
        self.expected = expected
        self.found = found
    }
}

/// Which methods are hooked beyond interactions: the tracker answers from its plan's tracked
/// events. A hook system whose observer conforms to this protocol (itself or behind
/// `InteractionRelay`s) hooks them on the classes its toolkit knows, tells every call, and says
/// which it cannot hook; any other hooks none. Toolkit-free: each toolkit's adapter decides what
/// a class and a hookable method are.
public protocol TrackedMethodSource: AnyObject, Sendable {
    /// The methods the plan in use tracks.
    var trackedMethods: Set<TrackedMethod> { get }
    /// `method` was called on `instance` (on the thread that called it, after the call).
    func trackedMethodCalled(_ method: TrackedMethod, on instance: AnyObject)
    /// Every tracked method the hooks of `place` (a registry, or a runtime) cannot hook now,
    /// replacing what was said for `place` before; empty when it hooks them all or stops.
    func trackedMethodsRefused(_ refusals: [TrackedMethod: MethodRefusal], in place: ObjectIdentifier)
    /// Calls `body` after every change of `trackedMethods`, on the thread that changed them.
    func onTrackedMethodsChange(_ body: @escaping @Sendable () -> Void)
}
