public import EventModel
public import Interactions
public import ViewIdentity

/// A view: a node of the view tree with subviews, text, data props and gesture recognisers.
open class UIView: UIResponder, ViewNode {
    public private(set) weak var superview: UIView?
    public private(set) var subviews: [UIView] = []
    /// Visible text, as the view shows it.
    open var title: String?
    /// The data behind the view, read by KVC key paths.
    open var props: JSONValue?
    public private(set) var gestureRecognizers: [UIGestureRecognizer] = []
    /// The identifier assistive technologies and UI tests know the view by; `autotrack-ignore`
    /// silences tracking of the view and everything inside it (docs/privacy.md).
    public var accessibilityIdentifier: String?
    /// Set when this view is a controller's root view.
    weak var owningController: UIViewController?
    /// Where the view lies in its superview (in a scroll view: in its content, before the offset);
    /// nil: it covers its superview. Only impressions read it (`visibleFraction`).
    open var frame: ViewRect?

    public override init() {
        super.init()
    }

    open var role: ViewRole { .view }

    public var ignoresTracking: Bool { accessibilityIdentifier == TrackingIgnoreMarker.name }

    /// Cells override this; declared here so that `any ViewNode` dispatches to the override.
    open var cellIndexPath: CellIndexPath? { nil }

    /// Views carry no alias, so their path name is the stored base name (no string work per event).
    public var pathName: String { baseName }

    /// The superview, or the controller whose root view this is (that controller is the node above).
    public var parentNode: (any ViewNode)? {
        if let owningController { return owningController }
        return superview
    }

    /// Subviews in order; a subview that is a controller's root view appears as that controller.
    public var childNodes: [any ViewNode] {
        subviews.map { v -> any ViewNode in v.owningController ?? v }
    }

    open override var next: UIResponder? { owningController ?? superview }

    /// The window this view is in, if any.
    public var window: UIWindow? {
        var v: UIView? = self
        while let current = v {
            if let w = current as? UIWindow { return w }
            v = current.superview
        }
        return nil
    }

    /// The nearest controller above this view (the controller a `viewPath` starts at).
    public var enclosingController: UIViewController? {
        var r: UIResponder? = self
        while let current = r {
            if let c = current as? UIViewController { return c }
            r = current.next
        }
        return nil
    }

    /// Appends `view` as the last subview, taking it from its old superview.
    open func addSubview(_ view: UIView) {
        insertSubview(view, at: subviews.count)
    }

    /// Inserts `view` at `index` among the subviews, taking it from its old superview.
    open func insertSubview(_ view: UIView, at index: Int) {
        if view.superview != nil { view.removeFromSuperview() }
        view.superview = self
        subviews.insert(view, at: min(max(0, index), subviews.count))
    }

    /// Takes the view out of its superview.
    open func removeFromSuperview() {
        guard let parent = superview else { return }
        parent.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// Attaches a recogniser; its actions are sent with this view as the node.
    open func addGestureRecognizer(_ recognizer: UIGestureRecognizer) {
        recognizer.removeFromView()
        recognizer.view = self
        gestureRecognizers.append(recognizer)
    }

    /// Detaches a recogniser.
    open func removeGestureRecognizer(_ recognizer: UIGestureRecognizer) {
        gestureRecognizers.removeAll { $0 === recognizer }
        if recognizer.view === self { recognizer.view = nil }
    }

    /// The first subview, depth first, that is a `T` and satisfies `predicate`.
    public func firstSubview<T: UIView>(ofType type: T.Type, where predicate: (T) -> Bool = { _ in true }) -> T? {
        for s in subviews {
            if let t = s as? T, predicate(t) { return t }
            if let found = s.firstSubview(ofType: type, where: predicate) { return found }
        }
        return nil
    }
}

/// A view that shows text.
open class UILabel: UIView {
    public init(text: String? = nil) {
        super.init()
        title = text
    }

    /// The label's text (its `title`).
    public var text: String? {
        get { title }
        set { title = newValue }
    }
}

/// A view that shows an image; often made tappable with a gesture recogniser.
open class UIImageView: UIView {
    /// The image's name.
    public var imageName: String?

    public init(imageName: String? = nil) {
        super.init()
        self.imageName = imageName
    }
}
