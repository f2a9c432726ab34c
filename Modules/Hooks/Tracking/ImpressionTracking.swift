import Interactions

/// Impressions on the UIKit-shaped model (docs/hooks.md "Impressions"): the app, as its run loop
/// would, asks the hook system to look at a window; each view's share visible inside the window
/// and every scroll view above it is measured from the views' frames.
extension HookSystem {
    /// Looks at what `window` shows now for impressions: call it on the UI thread whenever the
    /// screen may have changed and as time passes (a real run loop would every 100 ms). Does
    /// nothing while the observer has no impression rule, the system is stopped or the window is
    /// not shown or its app is in the background.
    public func checkImpressions(in window: UIWindow) {
        // The model has no notice of rule changes on its thread: the rules are read at each look.
        guard let impressions, impressions.rulesChanged(), window.isKeyWindow, isRunning,
            window.application.map({ $0.state == .active }) ?? true
        else { return }
        let size = window.frame ?? ViewRect(x: 0, y: 0, width: 0, height: 0)
        let screen = ViewRect(x: 0, y: 0, width: size.width, height: size.height)
        var sightings: [ImpressionWatcher.Sighting] = []
        HookSystem.collectSightings(window, rect: screen, clip: screen, into: &sightings)
        impressions.look(at: sightings)
    }

    /// `view` lies at `rect` (window coordinates) and its ancestors show only `clip`: each view
    /// below it, with the share of its area that shows. A scroll view clips what it holds and
    /// moves it up by its offset; a view without a frame covers its superview.
    static func collectSightings(_ view: UIView, rect: ViewRect, clip: ViewRect, into out: inout [ImpressionWatcher.Sighting]) {
        var inner = clip
        var origin = (x: rect.x, y: rect.y)
        if let scroll = view as? UIScrollView {
            inner = clip.intersection(rect)
            origin.y -= scroll.contentOffset
        }
        for child in view.subviews {
            let childRect =
                child.frame.map { $0.offsetBy(dx: origin.x, dy: origin.y) }
                ?? ViewRect(x: origin.x, y: origin.y, width: rect.width, height: rect.height)
            // A controller's root view is its controller in paths: not an element of its own.
            if child.owningController == nil {
                out.append(ImpressionWatcher.Sighting(node: child, fraction: childRect.fraction(visibleIn: inner)))
            }
            collectSightings(child, rect: childRect, clip: inner, into: &out)
        }
    }
}
