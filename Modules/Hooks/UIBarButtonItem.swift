import Interactions

/// A button in a navigation bar: a title and a target-action, shown as a `UINavigationButton`.
///
/// The action is sent through that button's target-action, so it is tracked like any control's
/// (`UINavigationController#HomeViewController#onCartPressed:`, on the page shown).
public final class UIBarButtonItem {
    public var title: String?
    public private(set) weak var target: AnyObject?
    public let action: ActionName
    let body: (AnyObject, UIBarButtonItem) -> Void

    /// An item that calls `body(target, item)` when tapped; the target is held weakly.
    public init<Target: AnyObject>(title: String?, target: Target, action: ActionName, _ body: @escaping (Target, UIBarButtonItem) -> Void) {
        self.title = title
        self.target = target
        self.action = action
        self.body = { t, item in body(t as! Target, item) }
    }
}

/// What a controller shows in the navigation bar while it is on top.
public final class UINavigationItem {
    public var leftBarButtonItems: [UIBarButtonItem] = [] { didSet { bar?.reload() } }
    public var rightBarButtonItems: [UIBarButtonItem] = [] { didSet { bar?.reload() } }
    weak var bar: UINavigationBar?

    init() {}
}

/// The bar of a navigation controller: one `UINavigationButton` per bar button item, left then right.
open class UINavigationBar: UIView {
    private var item: UINavigationItem?

    /// Shows `item`'s buttons.
    func show(_ item: UINavigationItem) {
        self.item?.bar = nil
        self.item = item
        item.bar = self
        reload()
    }

    func reload() {
        for v in subviews { v.removeFromSuperview() }
        guard let item else { return }
        for barItem in item.leftBarButtonItems + item.rightBarButtonItems {
            let button = UINavigationButton(item: barItem)
            addSubview(button)
            if let target = barItem.target {
                button.addTarget(target, action: barItem.action, for: .touchUpInside) { t, sender in
                    sender.item.body(t, barItem)
                }
            }
        }
    }

    /// The button showing `item`, if shown.
    public func button(for item: UIBarButtonItem) -> UINavigationButton? {
        subviews.lazy.compactMap { $0 as? UINavigationButton }.first { $0.item === item }
    }
}

/// The view of one bar button item in a navigation bar.
open class UINavigationButton: UIButton {
    public let item: UIBarButtonItem

    init(item: UIBarButtonItem) {
        self.item = item
        super.init(title: item.title)
    }
}
