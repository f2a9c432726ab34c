/// Told when the user scrolls.
public protocol UIScrollViewDelegate: AnyObject {
    func scrollViewDidEndDragging(_ scrollView: UIScrollView)
}

extension UIScrollViewDelegate {
    public func scrollViewDidEndDragging(_ scrollView: UIScrollView) {}
}

/// A view whose content scrolls vertically; a drag that ends is hookable (`scroll` interactions).
open class UIScrollView: UIView {
    /// Points scrolled from the top.
    public private(set) var contentOffset: Double = 0
    public weak var scrollDelegate: (any UIScrollViewDelegate)?

    public override init() {
        super.init()
    }

    open override class var hookPoints: [AnyHookPoint] { super.hookPoints + [HookPoint.didEndDragging.erased] }

    /// Moves the content without telling anyone, as code does.
    open func setContentOffset(_ offset: Double) {
        contentOffset = max(0, offset)
        layoutContent()
    }

    /// What the user's drag to `offset` does: moves the content, then reports the drag's end.
    open func drag(to offset: Double) {
        setContentOffset(offset)
        aspects.invoke(.didEndDragging, on: self, arguments: contentOffset) {
            notifyDidEndDragging()
        }
    }

    /// Tells the delegate that a drag ended; table views tell their own delegate.
    open func notifyDidEndDragging() {
        scrollDelegate?.scrollViewDidEndDragging(self)
    }

    /// Places content for the current offset; subclasses that reuse views override it.
    open func layoutContent() {}
}

extension HookPoint where Instance == UIScrollView, Arguments == Double, Result == Void {
    /// A drag ended at the content offset given; the delegate is told inside.
    public static var didEndDragging: Self { Self("scrollViewDidEndDragging:willDecelerate:") }
}
