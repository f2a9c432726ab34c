import CObjCRuntime

/// What went wrong in a call into the Objective-C runtime.
public struct ObjCError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, RawRepresentable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The message raised an exception, which the shim caught (`exceptionName` says which).
        public static let raised = Code(rawValue: "raised")
        /// The message was sent to nil.
        public static let nilReceiver = Code(rawValue: "nilReceiver")
        /// No class of that name is registered.
        public static let unknownClass = Code(rawValue: "unknownClass")
        /// The class has no instance method of that selector.
        public static let unknownSelector = Code(rawValue: "unknownSelector")
        /// No trampoline exists for the method's type encoding.
        public static let unsupportedSignature = Code(rawValue: "unsupportedSignature")
        /// A method that must never be hooked (memory management, forwarding, `dealloc`).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The selector is hooked already on the class, a superclass or a subclass.
        public static let alreadyHooked = Code(rawValue: "alreadyHooked")
        /// The runtime's table of hooks is full.
        public static let tooManyHooks = Code(rawValue: "tooManyHooks")
    }

    public var code: Code
    /// The selector or class concerned.
    public var subject: String
    /// For `raised`: the exception's name (`NSUnknownKeyException`) and reason.
    public var exceptionName: String?
    public var reason: String?

    public init(_ code: Code, subject: String, exceptionName: String? = nil, reason: String? = nil) {
        self.code = code
        self.subject = subject
        self.exceptionName = exceptionName
        self.reason = reason
    }

    public var description: String {
        switch code {
        case .raised: return "\(subject) raised \(exceptionName ?? "an exception")\(reason.map { ": \($0)" } ?? "")"
        case .nilReceiver: return "\(subject) was sent to nil"
        case .unknownClass: return "no Objective-C class named \(subject) is registered"
        case .unknownSelector: return "\(subject): the class has no such instance method; check the selector's spelling and colons"
        case .unsupportedSignature: return "\(subject) \(reason ?? ""): no trampoline for this method's signature (docs/objc.md lists the supported ones)"
        case .forbidden: return "\(subject) must not be hooked: the runtime itself relies on it (memory management, forwarding, deallocation)"
        case .alreadyHooked: return "\(subject) is hooked already on this class, a superclass or a subclass; remove that hook first"
        case .tooManyHooks: return "\(subject): the runtime's hook table is full"
        default: return "\(subject): \(code.rawValue)"
        }
    }

    /// `selector` is made only on failure: a literal's selector is registered with the runtime each time it is made.
    static func check(_ status: atr_status, _ selector: @autoclosure () -> ObjCSelector) throws(ObjCError) {
        guard status != ATR_OK else { return }
        throw from(status, subject: selector().name)
    }

    static func from(_ status: atr_status, subject: String) -> ObjCError {
        if status == ATR_NIL { return ObjCError(.nilReceiver, subject: subject) }
        return ObjCError(
            .raised, subject: subject, exceptionName: String(cString: atr_last_exception_name()),
            reason: String(cString: atr_last_exception_reason()))
    }

    /// Raises an `NSException` inside the shim and returns what it caught (the catching's own check).
    public static func raiseAndCatch(name: String, reason: String) -> ObjCError? {
        let status = name.withCString { n in reason.withCString { r in atr_raise(n, r) } }
        return status == ATR_OK ? nil : from(status, subject: "+[NSException raise:format:]")
    }
}
