import SystemCalls

/// A hook the registry refused, as Aspects refuses it: what, on which method, and how to fix it.
public struct AspectError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The class's method table has no method of that name.
        public static let unknownMethod = Code(name: "unknown method")
        /// No class of that name is known (hooks by name only).
        public static let unknownType = Code(name: "unknown type")
        /// The advice's argument or result types are not the method's.
        public static let signatureMismatch = Code(name: "signature mismatch")
        /// Object lifetime and messaging (`retain`, `release`, `autorelease`, `forwardInvocation:`).
        public static let forbiddenMethod = Code(name: "forbidden method")
        /// `instead` on `dealloc`: a deinit cannot be skipped.
        public static let insteadOnDealloc = Code(name: "instead on dealloc")
        /// Another class of the same hierarchy already has advice on the method.
        public static let alreadyHookedInHierarchy = Code(name: "already hooked in the class hierarchy")

        public var description: String { name }
    }

    public var code: Code
    public var typeName: String
    public var method: String
    /// Why, and how to fix it.
    public var reason: String

    public init(_ code: Code, type typeName: String, method: String, _ reason: String) {
        self.code = code
        self.typeName = typeName
        self.method = method
        self.reason = reason
    }

    public var description: String { "cannot hook -[\(typeName) \(method)] (\(code)): \(reason)" }
}

/// An advice threw; the call went on without it.
public struct AspectFailure: Sendable, Hashable, CustomStringConvertible {
    public var typeName: String
    public var method: String
    public var position: AspectPosition
    public var error: String

    public init(typeName: String, method: String, position: AspectPosition, error: String) {
        self.typeName = typeName
        self.method = method
        self.position = position
        self.error = error
    }

    public var description: String {
        "autotrack: \(position.rawValue) advice on -[\(typeName) \(method)] threw: \(error). "
            + "The original method ran; fix or remove the advice."
    }

    /// The default diagnostics: one line on standard error.
    @Sendable public static func writeToStandardError(_ failure: AspectFailure) {
        Posix.writeToStandardError(failure.description + "\n")
    }
}
