import Interactions
import ObjCRuntime
import ViewIdentity

/// Which windows are shown as pages, and how long: `page_enter` when a window with content is
/// ordered in, `page_leave` with its dwell when it is ordered out or closed (docs/objc.md "Pages").
final class AppKitPages {
    /// The window of each visit, retained while the visit lasts.
    private var pages = ShownPages<ObjCObject>()
    private let clock: any InteractionClock
    private let report: (Interaction) -> Void
    var onEnter: ((ObjCObject, AppKitNode) -> Void)?
    /// Called with each window whose page is being left, before its `page_leave`.
    var onLeave: ((ObjCObject) -> Void)?

    init(clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.report = report
    }

    var shownWindows: [ObjCObject] { pages.visits.map(\.place) }

    func windowEntered(_ window: ObjCObject) {
        guard !pages.visits.contains(where: { $0.place == window }) else { return }
        let node = AppKitNode.page(of: window)
        guard !node.ignoresTracking else { return }
        window.retain()
        report(pages.enter(window, node: node, clock: clock))
        onEnter?(window, node)
    }

    func windowLeft(_ window: ObjCObject) {
        leave { $0 == window }
    }

    func leaveAll() {
        leave { _ in true }
    }

    /// Leaves the pages of the windows `matches` selects, the last entered first.
    private func leave(where matches: (ObjCObject) -> Bool) {
        for window in shownWindows.reversed() where matches(window) { onLeave?(window) }
        let now = clock.monotonicNanoseconds()
        for v in pages.remove(where: { matches($0.place) }).reversed() {
            let node = AppKitNode(.page(window: v.place, owner: AppKit.pageOwner(of: v.place)), typeName: v.name)
            report(pages.leaving(v, node: node, now: now, clock: clock))
            v.place.release()
        }
    }
}
