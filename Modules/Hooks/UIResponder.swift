import ViewIdentity

/// The root of the object model: a link in the responder chain and a member of one aspect registry.
///
/// The names follow UIKit on purpose: a view's path (`HomeViewController-UIView-UITableView-…`)
/// is then the same string an iOS SDK computes for the same screen, so configurations and
/// back ends work across platforms. UI objects are confined to one thread, like UIKit's main
/// thread, so they are not `Sendable`.
open class UIResponder: Hookable {
    /// The registry whose advice applies to this object: `AspectRegistry.current` when it was created.
    public let aspects: AspectRegistry

    public init() {
        aspects = AspectRegistry.current
        aspects.learn(type(of: self))
    }

    deinit {
        aspects.invokeDealloc(self)
    }

    /// The hookable methods of the class (its method table): subclasses add theirs to `super`'s.
    open class var hookPoints: [AnyHookPoint] { [HookPoint.dealloc.erased] }

    /// The action names this class's target-actions are bound to, for configuration checks.
    open class var actionMethods: [ActionName] { [] }

    /// The next responder: a view's superview or controller, a controller's parent, a window's application.
    open var next: UIResponder? { nil }

    /// The runtime type name as `String(reflecting:)` prints it (`DemoShop.ProductCell`), computed once.
    public private(set) lazy var typeName: String = String(reflecting: type(of: self))

    /// `typeName` as rule 3 names it, without alias (docs/viewpath.md §2), computed once: every
    /// interaction needs it, and the name is string work.
    public private(set) lazy var baseName: String = TypeName.name(typeName)

    /// Runs `body` as the hook point `point` of this object (which must be an `Instance`), so
    /// advice can run around it: `func share() { hookable(.share, ()) { … } }`.
    public func hookable<Instance, Arguments, Result>(
        _ point: HookPoint<Instance, Arguments, Result>, _ arguments: @autoclosure () -> Arguments, _ body: () -> Result
    ) -> Result {
        aspects.invoke(point, on: self as! Instance, arguments: arguments(), original: body)
    }
}
