import Interactions

/// Tabs: one child controller shown at a time, chosen from a tab bar.
///
/// Its view holds the selected child's view, then a `UITabBar` with one `UITabBarButton` per
/// child. A tap on a button is a target-action (`tabBar:didSelectItem:`, target the tab bar
/// controller) that switches the page: a `click`, then the old page's `pageLeave` and the new one's
/// `pageEnter`. A tab bar controller is a container, not a page.
open class UITabBarController: UIViewController {
    public private(set) var viewControllers: [UIViewController] = []
    public private(set) var selectedIndex = 0
    public let tabBar = UITabBar()

    /// The action a tab's button sends, named after UIKit's delegate method.
    public static let selectAction: ActionName = "tabBar:didSelectItem:"

    public init(viewControllers: [UIViewController]) {
        super.init()
        for c in viewControllers { addChild(c) }
        self.viewControllers = viewControllers
    }

    open override func loadView() -> UIView {
        let v = UIView()
        if let shown = selectedViewController { v.addSubview(shown.view) }
        v.addSubview(tabBar)
        for (i, c) in viewControllers.enumerated() {
            let button = UITabBarButton(title: c.title, index: i)
            tabBar.addSubview(button)
            button.addTarget(self, action: UITabBarController.selectAction, for: .touchUpInside) { tabs, sender in
                tabs.select(sender.index)
            }
        }
        return v
    }

    open override var isContainer: Bool { true }
    open override var eventPage: String? { selectedViewController?.eventPage }
    public var selectedViewController: UIViewController? {
        viewControllers.indices.contains(selectedIndex) ? viewControllers[selectedIndex] : nil
    }
    open override var appearingChildren: [UIViewController] { selectedViewController.map { [$0] } ?? [] }

    /// Shows the child at `index` (as code does): the shown one disappears, the new one appears.
    open func select(_ index: Int) {
        guard viewControllers.indices.contains(index), index != selectedIndex else { return }
        let old = selectedViewController
        if isVisible { old?.performDisappear() }
        old?.view.removeFromSuperview()
        selectedIndex = index
        if let new = selectedViewController {
            view.insertSubview(new.view, at: 0)
            if isVisible { new.performAppear() }
        }
    }

    /// The button of the tab at `index`: what the user taps.
    public func button(at index: Int) -> UITabBarButton? {
        _ = view
        return tabBar.subviews.lazy.compactMap { $0 as? UITabBarButton }.first { $0.index == index }
    }
}

/// The bar of a tab bar controller.
open class UITabBar: UIView {}

/// One tab's button: its title is the tab's controller's title.
open class UITabBarButton: UIButton {
    public let index: Int

    init(title: String?, index: Int) {
        self.index = index
        super.init(title: title)
    }
}
