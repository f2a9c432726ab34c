import Interactions
public import ViewIdentity

/// The top of a view tree: a node of role `window` whose child is the root controller.
open class UIWindow: UIView {
    /// The application the window belongs to (its next responder).
    public internal(set) weak var application: UIApplication?
    public private(set) var isKeyWindow = false

    /// A window of a phone's screen, 375 × 667 points.
    public override init() {
        super.init()
        frame = ViewRect(x: 0, y: 0, width: 375, height: 667)
    }

    open override var role: ViewRole { .window }
    open override var next: UIResponder? { application }

    /// The root controller; its view becomes the window's only subview.
    open var rootViewController: UIViewController? {
        didSet {
            guard oldValue !== rootViewController else { return }
            if let old = oldValue {
                if isKeyWindow { old.performDisappear() }
                old.view.removeFromSuperview()
                old.hostWindow = nil
            }
            if let root = rootViewController {
                root.hostWindow = self
                addSubview(root.view)
                if isKeyWindow { root.performAppear() }
            }
        }
    }

    /// Shows the window: its root controller appears.
    open func makeKeyAndVisible() {
        guard !isKeyWindow else { return }
        isKeyWindow = true
        rootViewController?.performAppear()
    }
}
