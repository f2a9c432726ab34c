/// A stack of controllers of which the top one is shown; push and pop drive appear and disappear.
///
/// Its view holds a `UINavigationBar` (the top controller's bar button items) and the top
/// controller's view.
open class UINavigationController: UIViewController {
    public private(set) var viewControllers: [UIViewController] = []
    /// The bar over the content: `UINavigationButton`s for the top controller's `navigationItem`.
    public let navigationBar = UINavigationBar()

    public init(rootViewController: UIViewController) {
        super.init()
        push(rootViewController)
    }

    open override func loadView() -> UIView {
        let v = UIView()
        v.addSubview(navigationBar)
        return v
    }

    open override var isContainer: Bool { true }
    open override var eventPage: String? { topViewController?.eventPage }
    public var topViewController: UIViewController? { viewControllers.last }
    open override var appearingChildren: [UIViewController] { topViewController.map { [$0] } ?? [] }

    /// Shows `controller` on top: the old top disappears, the new one appears (when on screen).
    open func pushViewController(_ controller: UIViewController, animated: Bool = true) {
        let old = topViewController
        if isVisible { old?.performDisappear(animated: animated) }
        old?.view.removeFromSuperview()
        push(controller)
        if isVisible { controller.performAppear(animated: animated) }
    }

    /// Removes the top controller (never the root): it disappears, the one below appears.
    @discardableResult
    open func popViewController(animated: Bool = true) -> UIViewController? {
        guard viewControllers.count > 1, let top = viewControllers.last else { return nil }
        if isVisible { top.performDisappear(animated: animated) }
        top.removeFromParent()
        viewControllers.removeLast()
        if let below = topViewController {
            view.addSubview(below.view)
            navigationBar.show(below.navigationItem)
            if isVisible { below.performAppear(animated: animated) }
        }
        return top
    }

    private func push(_ controller: UIViewController) {
        addChild(controller)
        viewControllers.append(controller)
        view.addSubview(controller.view)
        navigationBar.show(controller.navigationItem)
    }
}
