import Interactions
import ObjCRuntime
import ViewIdentity

/// Which windows are shown as pages, and how long: `page_enter` when a window with content is
/// ordered in, `page_leave` with its dwell when it is ordered out or closed (docs/objc.md "Pages").
final class AppKitPages {
    private struct Visit {
        /// Retained while the visit lasts.
        let window: ObjCObject
        let name: String
        let enteredNanos: UInt64
    }

    private var visits: [Visit] = []
    private var counts: [String: Int] = [:]
    private let clock: any HookClock
    private let report: (Interaction) -> Void
    var onEnter: ((ObjCObject, AppKitNode) -> Void)?

    init(clock: any HookClock, report: @escaping (Interaction) -> Void) {
        self.clock = clock
        self.report = report
    }

    var shownWindows: [ObjCObject] { visits.map(\.window) }

    func windowEntered(_ window: ObjCObject) {
        guard !visits.contains(where: { $0.window == window }) else { return }
        let node = AppKitNode.page(of: window)
        guard !node.ignoresTracking else { return }
        window.retain()
        let name = node.pathName
        visits.append(Visit(window: window, name: name, enteredNanos: clock.monotonicNanoseconds()))
        counts[name, default: 0] += 1
        report(Interaction(kind: .pageEnter, node: node, title: node.title, page: name, pageCount: counts[name], timestamp: clock.wallMilliseconds()))
        onEnter?(window, node)
    }

    func windowLeft(_ window: ObjCObject) {
        guard let i = visits.firstIndex(where: { $0.window == window }) else { return }
        leave(i)
    }

    func leaveAll() {
        while !visits.isEmpty { leave(visits.count - 1) }
    }

    private func leave(_ i: Int) {
        let v = visits.remove(at: i)
        let now = clock.monotonicNanoseconds()
        let node = AppKitNode(.page(window: v.window, owner: AppKit.pageOwner(of: v.window)), typeName: v.name)
        report(
            Interaction(
                kind: .pageLeave, node: node, title: node.title, duration: Int64((now &- v.enteredNanos) / 1_000_000), page: v.name,
                pageCount: counts[v.name], timestamp: clock.wallMilliseconds()))
        v.window.release()
    }
}
