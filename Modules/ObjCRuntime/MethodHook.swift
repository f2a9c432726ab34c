import CObjCRuntime

/// One call of a hooked method, as advice sees it: the receiver, the arguments after `self` and
/// `_cmd` (typed by the method's signature), and the return value after the call.
public struct Invocation {
    public let receiver: ObjCObject
    public let selector: ObjCSelector
    let arguments: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    let result: UnsafeMutableRawPointer?
    let hook: Int32

    /// Argument `i` (0: the first after `_cmd`) as an object.
    public func object(at i: Int) -> ObjCObject? {
        arguments[i].flatMap { ObjCObject($0.load(as: UnsafeMutableRawPointer?.self)) }
    }

    /// Argument `i` as a selector.
    public func selector(at i: Int) -> ObjCSelector? {
        arguments[i].flatMap { $0.load(as: UnsafeRawPointer?.self) }.map(ObjCSelector.init)
    }

    public func int32(at i: Int) -> Int32 { arguments[i]?.load(as: Int32.self) ?? 0 }
    public func integer(at i: Int) -> Int { arguments[i]?.load(as: Int.self) ?? 0 }

    /// The return value of a method returning `BOOL`, as it stands (after: the original's).
    public var boolResult: Bool {
        get { result.map { $0.load(as: Int8.self) != 0 } ?? false }
        nonmutating set { result?.storeBytes(of: newValue ? 1 : 0, as: Int8.self) }
    }

    public var objectResult: ObjCObject? {
        get { result.flatMap { ObjCObject($0.load(as: UnsafeMutableRawPointer?.self)) } }
        nonmutating set { result?.storeBytes(of: newValue?.pointer, as: UnsafeMutableRawPointer?.self) }
    }

    public var integerResult: Int {
        get { result?.load(as: Int.self) ?? 0 }
        nonmutating set { result?.storeBytes(of: newValue, as: Int.self) }
    }

    /// Calls the original implementation now (for `instead` advice that still wants it); its
    /// return value becomes the call's.
    public func callOriginal() {
        atr_hook_call_original(hook, receiver.pointer, arguments, result)
    }
}

/// When advice runs, relative to the original implementation.
public enum AdvicePhase: Sendable {
    case before, after
}

/// A method of a class replaced by the trampoline of its signature: advice runs before and after
/// the original implementation, which is called unless the before-advice says `skipOriginal`
/// ("instead"). Advice runs on the thread of the call, in an autorelease pool of its own; a hooked
/// method that advice itself calls runs unadvised (no recursion). Not a product's public face:
/// `Aspects` and the AppKit hooks build on it.
public final class MethodHook {
    public let cls: ObjCClass
    public let selector: ObjCSelector
    /// Returns true from the before phase to skip the original.
    public typealias Advice = (AdvicePhase, Invocation) -> Bool
    private let advice: Advice
    private var number: Int32 = -1

    /// Selectors no hook may replace: the runtime and Foundation rely on them at every step.
    public static let forbidden: Set<String> = [
        "retain", "release", "autorelease", "retainCount", "dealloc", "forwardInvocation:", "methodSignatureForSelector:",
        "respondsToSelector:", "class", "isKindOfClass:", "zone", "finalize", "doesNotRecognizeSelector:",
        "forwardingTargetForSelector:", "allocWithZone:", "alloc", "init",
    ]

    /// Replaces `selector` on `cls` (an inherited method is copied onto `cls` first, so only
    /// `cls` and its subclasses are advised). `advice` is called in the `phases` given only: a
    /// phase left out adds nothing to the hooked call (no pool, no call).
    public convenience init(
        cls: ObjCClass, selector: ObjCSelector, phases: [AdvicePhase] = [.before, .after], advice: @escaping Advice
    ) throws(ObjCError) {
        try self.init(cls: cls, selector: selector, phases: phases, allowingForbidden: false, advice: advice)
    }

    /// `allowingForbidden`: the runtime layer's own watch of `dealloc` (per-object aspects).
    init(
        cls: ObjCClass, selector: ObjCSelector, phases: [AdvicePhase] = [.before, .after], allowingForbidden: Bool,
        advice: @escaping Advice
    ) throws(ObjCError) {
        let subject = "-[\(cls.name) \(selector.name)]"
        guard allowingForbidden || !MethodHook.forbidden.contains(selector.name) else { throw ObjCError(.forbidden, subject: subject) }
        guard let types = cls.methodTypes(selector) else { throw ObjCError(.unknownSelector, subject: subject) }
        guard atr_signature_of(types) >= 0 else { throw ObjCError(.unsupportedSignature, subject: subject, reason: "(\(types))") }
        self.cls = cls
        self.selector = selector
        self.advice = advice
        // The trampoline holds the hook unretained; `remove()` or deinit takes it out first.
        let mask = phases.reduce(Int32(0)) { $0 | ($1 == .before ? Int32(ATR_PHASE_BEFORE) : Int32(ATR_PHASE_AFTER)) }
        let n = atr_hook_install(
            cls.pointer, selector.pointer, MethodHook.trampolineAdvice, Unmanaged.passUnretained(self).toOpaque(), mask)
        switch n {
        case -1: throw ObjCError(.unknownSelector, subject: subject)
        case -2: throw ObjCError(.unsupportedSignature, subject: subject, reason: "(\(types))")
        case -3: throw ObjCError(.alreadyHooked, subject: subject)
        case ..<0: throw ObjCError(.tooManyHooks, subject: subject)
        default: number = n
        }
    }

    deinit { remove() }

    /// Puts the original implementation back.
    public func remove() {
        guard number >= 0 else { return }
        atr_hook_remove(number)
        number = -1
    }

    private static let trampolineAdvice: atr_advice = { context, phase, object, cmd, arguments, result in
        guard let context, let object, let cmd, let arguments else { return 0 }
        let hook = Unmanaged<MethodHook>.fromOpaque(context).takeUnretainedValue()
        let invocation = Invocation(
            receiver: ObjCObject(object), selector: ObjCSelector(cmd), arguments: arguments, result: result, hook: hook.number)
        return hook.advice(phase == 0 ? .before : .after, invocation) ? 1 : 0
    }
}

/// Classes as the runtime registers them from now on (the app's own classes register after a
/// preload library's constructor ran).
public enum ClassLoading {
    nonisolated(unsafe) private static var handlers: [(ObjCClass) -> Void] = []

    /// Calls `handler` with each class registered from now on, on the thread that loads it.
    /// Call from the thread that loads code (the main thread, in the constructor).
    public static func onLoad(_ handler: @escaping (ObjCClass) -> Void) {
        handlers.append(handler)
        atr_on_class_load { cls in
            guard let cls else { return }
            for h in ClassLoading.handlers { h(ObjCClass(cls)) }
        }
    }
}
