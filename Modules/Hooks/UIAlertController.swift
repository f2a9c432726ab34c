import Interactions

/// One button of an alert: a title, a style and what it does.
public final class UIAlertAction {
    public enum Style: Sendable, Hashable {
        case `default`, cancel, destructive
    }

    public let title: String?
    public let style: Style
    let handler: ((UIAlertAction) -> Void)?

    public init(title: String?, style: Style = .default, handler: ((UIAlertAction) -> Void)? = nil) {
        self.title = title
        self.style = style
        self.handler = handler
    }
}

/// An alert or action sheet, presented by a page (`present(_:)`), whose node is that page's child.
///
/// Each action is a `_UIAlertControllerActionView` (UIKit's private class name) whose tap is a
/// target-action, `dismissWithAction:` on the alert: a `click` whose title (the event's content)
/// is the action's title, on the presenting page. An alert is not a page: it reports no page events.
open class UIAlertController: UIViewController {
    public enum Style: Sendable, Hashable {
        case alert, actionSheet
    }

    public let message: String?
    public let preferredStyle: Style
    public private(set) var actions: [UIAlertAction] = []

    /// The action every action view sends.
    public static let dismissAction: ActionName = "dismissWithAction:"

    public init(title: String?, message: String?, preferredStyle: Style) {
        self.message = message
        self.preferredStyle = preferredStyle
        super.init()
        self.title = title
    }

    open override var isPage: Bool { false }
    open override var eventPage: String? { presentingViewController?.eventPage }

    /// Adds a button.
    open func addAction(_ action: UIAlertAction) {
        actions.append(action)
        if isViewLoaded { addView(for: action) }
    }

    open override func loadView() -> UIView {
        let v = UIView()
        if let title { v.addSubview(UILabel(text: title)) }
        if let message { v.addSubview(UILabel(text: message)) }
        return v
    }

    open override func viewDidLoad() {
        for a in actions { addView(for: a) }
    }

    private func addView(for action: UIAlertAction) {
        let actionView = _UIAlertControllerActionView(action: action)
        view.addSubview(actionView)
        actionView.addTarget(self, action: UIAlertController.dismissAction, for: .touchUpInside) { alert, sender in
            alert.dismiss(animated: true)
            sender.action.handler?(sender.action)
        }
    }

    /// The view of the action titled `title`: what the user taps.
    public func actionView(titled title: String) -> _UIAlertControllerActionView? {
        view.subviews.lazy.compactMap { $0 as? _UIAlertControllerActionView }.first { $0.action.title == title }
    }
}

/// The view of one alert action (named as UIKit's private class, so paths match iOS SDKs').
open class _UIAlertControllerActionView: UIControl {
    public let action: UIAlertAction

    init(action: UIAlertAction) {
        self.action = action
        super.init()
        title = action.title
    }

    /// What a finger's tap does.
    open func tap() { sendActions(for: .touchUpInside) }
}
