/// A hookable method, typed: the class that declares it, the arguments it is called with (one
/// value, or a tuple for several) and its result.
///
/// The object model declares its hook points beside the classes that call them
/// (`HookPoint.viewDidAppear`, `HookPoint.sendAction`…); advice on one reads the call with its own
/// types (`call.instance: UIViewController`, `call.arguments: Bool`), never by position. App code
/// declares its own the same way and makes a method hookable with `hookable(_:_:_:)`:
///
/// ```swift
/// extension HookPoint where Instance == LoginView, Arguments == (LoginView, String), Result == Void {
///     static var handleError: Self { Self("loginView:handleError:") }
/// }
/// ```
public struct HookPoint<Instance: AnyObject, Arguments, Result>: Sendable, Hashable, CustomStringConvertible {
    /// The selector-style name: what configurations, diagnostics and name-based hooks use.
    public let method: String

    public init(_ method: String) { self.method = method }

    /// The point without its types, as method tables list it.
    public var erased: AnyHookPoint {
        AnyHookPoint(method: method, arguments: Arguments.self, result: Result.self)
    }

    public var description: String { "-[\(String(reflecting: Instance.self)) \(method)]" }
}

/// A hook point without its static types: a method table's entry.
public struct AnyHookPoint: Sendable, Hashable, CustomStringConvertible {
    public let method: String
    public let arguments: any Any.Type
    public let result: any Any.Type

    public init(method: String, arguments: any Any.Type, result: any Any.Type) {
        self.method = method
        self.arguments = arguments
        self.result = result
    }

    /// `(A) -> R`, as refusals print the signature.
    public var signature: String { "(\(String(reflecting: arguments))) -> \(String(reflecting: result))" }
    public var description: String { "\(method) \(signature)" }

    public static func == (a: AnyHookPoint, b: AnyHookPoint) -> Bool {
        a.method == b.method && ObjectIdentifier(a.arguments) == ObjectIdentifier(b.arguments)
            && ObjectIdentifier(a.result) == ObjectIdentifier(b.result)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(method) }
}

/// A class whose hookable methods are known by name: its method table, as the Objective-C runtime
/// keeps one. `AspectRegistry` refuses hooks on methods a table lacks, or with another signature.
public protocol Hookable: AnyObject {
    /// Every hookable method of the class, inherited ones included.
    static var hookPoints: [AnyHookPoint] { get }
    /// The action names the class's target-actions are bound to (`onFavBtnPressed:`): methods too,
    /// reached through `addTarget`, so a configuration may name them.
    static var actionMethods: [ActionName] { get }
}

extension HookPoint where Instance == UIResponder, Arguments == Void, Result == Void {
    /// Every responder's `deinit`: `before` and `after` advice run while the object still exists;
    /// `instead` is refused (a deinit cannot be skipped).
    public static var dealloc: Self { Self("dealloc") }
}
