/// One call of a hooked method, as advice sees it, untyped (advice registered by type name).
///
/// Lives only for the call: it belongs to the UI thread, like the instance it names.
public class AspectInvocation {
    /// The object whose method is called.
    public let instance: AnyObject
    /// The method's selector-style name.
    public let method: String
    /// Where the running advice sits.
    public internal(set) var position: AspectPosition = .before
    /// The result: set by the original, or by an advice that replaces it.
    public var returnValue: Any? {
        get { result }
        set {
            result = newValue
            replaced = true
        }
    }
    /// The result as the original or an advice left it.
    var result: Any?
    /// An advice set `returnValue`: the call returns it rather than the original's own result.
    var replaced = false
    var proceedBody: (() -> Void)?

    init(instance: AnyObject, method: String) {
        self.instance = instance
        self.method = method
    }

    /// The call's arguments: one value, a tuple for several, `()` for none.
    public var arguments: Any { fatalError("an invocation is always a TypedInvocation") }

    /// From an instead advice: runs the next instead advice, or the original. Runs at most once.
    public func proceed() {
        proceedBody?()
    }
}

/// An invocation that keeps its arguments with their static type, so typed advice reads them
/// without boxing or a dynamic cast.
final class TypedInvocation<Arguments>: AspectInvocation {
    let typed: Arguments

    init(instance: AnyObject, method: String, typed: Arguments) {
        self.typed = typed
        super.init(instance: instance, method: method)
    }

    override var arguments: Any { typed }
}

/// One call of a hook point, with the point's own types: what typed advice receives.
public struct HookedCall<Instance: AnyObject, Arguments, Result> {
    let invocation: AspectInvocation

    init(_ invocation: AspectInvocation) { self.invocation = invocation }

    /// The object whose method is called.
    public var instance: Instance { invocation.instance as! Instance }
    /// The call's arguments (the registry stores exactly what the hook point's caller passed).
    public var arguments: Arguments {
        // The registry's typed `invoke` made it: an identity check, no dynamic cast.
        if ObjectIdentifier(type(of: invocation)) == ObjectIdentifier(TypedInvocation<Arguments>.self) {
            return unsafeDowncast(invocation, to: TypedInvocation<Arguments>.self).typed
        }
        return invocation.arguments as! Arguments
    }
    /// Where the running advice sits.
    public var position: AspectPosition { invocation.position }
    /// The result once the original ran (after advice), or what an instead advice sets.
    public var returnValue: Result? {
        get { invocation.returnValue as? Result }
        nonmutating set { invocation.returnValue = newValue }
    }

    /// From an instead advice: runs the next instead advice, or the original. Runs at most once.
    public func proceed() { invocation.proceed() }
}
