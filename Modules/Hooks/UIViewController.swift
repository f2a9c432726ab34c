public import EventModel
public import ViewIdentity

/// A screen: a node of role `controller` whose child is its root view, with a lifecycle that hooks observe.
///
/// `viewDidAppear(_:)` and `viewDidDisappear(_:)` are overridden by apps and called by the
/// object model (containers, windows) through the aspect registry, so page tracking needs
/// nothing from the app.
open class UIViewController: UIResponder, ViewNode {
    /// The page alias: distinguishes uses of one class as different pages (`DetailViewController(gift)`).
    /// Read on every tracked tap (the page's name) and written only while a screen is set up, on
    /// the UI thread, so never in overlapping accesses: no dynamic exclusivity check.
    @exclusivity(unchecked) open var pageAlias: String?
    /// The screen's title.
    open var title: String?
    /// The data behind the screen, read by KVC key paths.
    open var props: JSONValue?
    public private(set) weak var parent: UIViewController?
    public private(set) var children: [UIViewController] = []
    /// Whether the controller is on screen (between did-appear and will-disappear).
    public private(set) var isVisible = false
    /// Set on a window's root controller.
    weak var hostWindow: UIWindow?
    private var loadedView: UIView?

    public override init() {
        super.init()
    }

    public var role: ViewRole { .controller }

    /// The root view, loaded on first use (`loadView`, then `viewDidLoad`).
    public var view: UIView {
        if let loadedView { return loadedView }
        let v = loadView()
        v.owningController = self
        loadedView = v
        aspects.invoke(.viewDidLoad, on: self, arguments: ()) { viewDidLoad() }
        return v
    }

    public var isViewLoaded: Bool { loadedView != nil }

    /// A screen whose root view is marked `autotrack-ignore` is ignored with everything on it,
    /// its page events included (docs/privacy.md).
    public var ignoresTracking: Bool { loadedView?.ignoresTracking ?? false }

    /// Makes the root view; override to build a custom one.
    open func loadView() -> UIView { UIView() }

    open func viewDidLoad() {}
    open func viewWillAppear(_ animated: Bool) {}
    open func viewDidAppear(_ animated: Bool) {}
    open func viewWillDisappear(_ animated: Bool) {}
    open func viewDidDisappear(_ animated: Bool) {}

    open override class var hookPoints: [AnyHookPoint] {
        super.hookPoints + [
            HookPoint.viewDidLoad.erased, HookPoint.viewWillAppear.erased, HookPoint.viewDidAppear.erased,
            HookPoint.viewWillDisappear.erased, HookPoint.viewDidDisappear.erased,
        ]
    }

    /// Containers (navigation, tabs) are not pages themselves: page events come from their content.
    open var isContainer: Bool { false }

    /// Whether appearing and disappearing are page events: not for containers (nor alerts).
    open var isPage: Bool { !isContainer }

    /// The page that interactions inside this controller belong to: itself when it is a page; a
    /// container's shown child's page; an alert's presenting page.
    open var eventPage: String? { isPage ? pathName : nil }

    /// The bar button items and title a navigation controller shows while this controller is on top.
    public private(set) lazy var navigationItem = UINavigationItem()

    /// The controller this one presented (an alert), and the one that presented this one.
    public private(set) var presentedViewController: UIViewController?
    public private(set) weak var presentingViewController: UIViewController?

    /// The children that appear and disappear with this controller: all of them, for a plain
    /// controller; the top one, for a navigation controller.
    open var appearingChildren: [UIViewController] { children }

    // MARK: ViewNode

    /// `Name(alias)` for an aliased page (docs/viewpath.md §2 rule 3); must equal `ViewPath.elementName(of:)`.
    public var pathName: String {
        guard let alias = pageAlias, !alias.isEmpty else { return baseName }
        return "\(baseName)(\(alias))"
    }

    public var parentNode: (any ViewNode)? {
        if let sv = loadedView?.superview { return sv }
        if let parent { return parent }
        return hostWindow
    }

    public var childNodes: [any ViewNode] { loadedView.map { [$0] } ?? [] }

    open override var next: UIResponder? {
        if let sv = loadedView?.superview { return sv }
        if let parent { return parent }
        return hostWindow
    }

    // MARK: Containment

    /// Adds `child` as a child controller (its view is placed by the caller).
    open func addChild(_ child: UIViewController) {
        child.removeFromParent()
        child.parent = self
        children.append(child)
    }

    /// Leaves the parent controller and takes the view out of its superview.
    open func removeFromParent() {
        guard let p = parent else { return }
        p.children.removeAll { $0 === self }
        parent = nil
        if isViewLoaded { view.removeFromSuperview() }
    }

    /// The nearest navigation controller above.
    public var navigationController: UINavigationController? {
        var c = parent
        while let current = c {
            if let nav = current as? UINavigationController { return nav }
            c = current.parent
        }
        return nil
    }

    // MARK: Presentation

    /// Shows `controller` over this one (an alert, an action sheet): it becomes a child whose view
    /// is placed in this controller's view, so it is this page's child in the tree.
    open func present(_ controller: UIViewController, animated: Bool = true) {
        presentedViewController?.dismiss(animated: animated)
        presentedViewController = controller
        controller.presentingViewController = self
        addChild(controller)
        view.addSubview(controller.view)
        if isVisible { controller.performAppear(animated: animated) }
    }

    /// Takes away what this controller presented, or this controller when it was presented.
    open func dismiss(animated: Bool = true) {
        if let shown = presentedViewController {
            shown.dismiss(animated: animated)
            return
        }
        guard let presenter = presentingViewController else { return }
        performDisappear(animated: animated)
        removeFromParent()
        presenter.presentedViewController = nil
        presentingViewController = nil
    }

    // MARK: Appearance, driven by containers and windows

    /// Runs the appear half of the lifecycle on this controller, then on `appearingChildren`.
    public func performAppear(animated: Bool = false) {
        guard !isVisible else { return }
        aspects.invoke(.viewWillAppear, on: self, arguments: animated) { viewWillAppear(animated) }
        isVisible = true
        aspects.invoke(.viewDidAppear, on: self, arguments: animated) { viewDidAppear(animated) }
        for child in appearingChildren { child.performAppear(animated: animated) }
    }

    /// Runs the disappear half: `appearingChildren` first, then this controller.
    public func performDisappear(animated: Bool = false) {
        guard isVisible else { return }
        for child in appearingChildren.reversed() { child.performDisappear(animated: animated) }
        aspects.invoke(.viewWillDisappear, on: self, arguments: animated) { viewWillDisappear(animated) }
        isVisible = false
        aspects.invoke(.viewDidDisappear, on: self, arguments: animated) { viewDidDisappear(animated) }
    }
}

extension HookPoint where Instance == UIViewController, Arguments == Void, Result == Void {
    /// The root view was loaded.
    public static var viewDidLoad: Self { Self("viewDidLoad") }
}

extension HookPoint where Instance == UIViewController, Arguments == Bool, Result == Void {
    /// Lifecycle, with `animated`.
    public static var viewWillAppear: Self { Self("viewWillAppear:") }
    public static var viewDidAppear: Self { Self("viewDidAppear:") }
    public static var viewWillDisappear: Self { Self("viewWillDisappear:") }
    public static var viewDidDisappear: Self { Self("viewDidDisappear:") }
}
