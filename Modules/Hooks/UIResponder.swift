import ViewIdentity

/// The root of the object model: a link in the responder chain and a member of one aspect registry.
///
/// The names follow UIKit on purpose: a view's path (`HomeViewController-UIView-UITableView-…`)
/// is then the same string an iOS SDK computes for the same screen, so configurations and
/// back ends work across platforms. UI objects are confined to one thread, like UIKit's main
/// thread, so they are not `Sendable`.
open class UIResponder {
    /// The registry whose advice applies to this object: `AspectRegistry.current` when it was created.
    public let aspects: AspectRegistry

    public init() {
        aspects = AspectRegistry.current
    }

    /// The next responder: a view's superview or controller, a controller's parent, a window's application.
    open var next: UIResponder? { nil }

    /// The runtime type name as `String(reflecting:)` prints it (`DemoShop.ProductCell`), computed once.
    public private(set) lazy var typeName: String = String(reflecting: type(of: self))

    /// `typeName` without module prefix and without alias (viewpath.md §2 rule 3), computed once: every
    /// interaction needs it, and stripping is string work.
    public private(set) lazy var baseName: String = TypeName.stripModulePrefix(typeName)

    /// Runs `body` as the hookable method `method` of this object, so advice can run around it.
    ///
    /// App code makes its own methods hookable with it:
    /// `func share() { hookable("share") { … } }`.
    public func hookable<R>(_ method: String, arguments: @autoclosure () -> [Any] = [], _ body: () -> R) -> R {
        aspects.invoke(self, method, arguments: arguments(), original: body)
    }
}
