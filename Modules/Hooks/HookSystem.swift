import Synchronization
import ViewIdentity

/// The codeless tracking layer: advice on the object model's hookable methods that turns what
/// the UI does into `Interaction`s for one observer, without the app's code calling anything.
///
/// `start()` registers the advice in `aspects` (as swizzling would on iOS); `stop()` removes it.
/// While running:
/// - `addTarget` on a control or gesture recogniser places a tracking proxy beside the new
///   target, just before it; `removeTarget` removes the proxy with its partner. When the control
///   sends the action, the proxy reports a `click` / `valueChanged` / `gesture`, then the real
///   target runs exactly as before. Targets added before `start()` have no proxy.
/// - a row selection reports `listItemClick` before the table's delegate runs;
/// - `viewDidAppear` / `viewDidDisappear` report `pageEnter` / `pageLeave` (with dwell time),
///   containers (navigation controllers) excepted;
/// - launch, background and foreground report `appStart` (once), `appBackground`, `appForeground`;
/// - the end of a drag reports `scroll`.
///
/// Instances are independent: tests give each its own `AspectRegistry` and clock.
public final class HookSystem: @unchecked Sendable {
    // Sendable by hand: `state` (a Mutex) guards every mutable field. `observer` never changes
    // and is called only from advice, which runs on the UI thread that drives the objects.

    public let aspects: AspectRegistry
    public let clock: any HookClock
    let observer: any InteractionObserver

    private struct State {
        var tokens: [AspectToken] = []
        var pageStarts: [ObjectIdentifier: UInt64] = [:]
        var pageCounts: [String: Int] = [:]
        var launched = false
        var running = false
    }

    private let state = Mutex(State())

    /// A hook system reporting to `observer`, hooking objects of `aspects`, timing with `clock`.
    public init(observer: any InteractionObserver, aspects: AspectRegistry = .current, clock: any HookClock = SystemHookClock()) {
        self.observer = observer
        self.aspects = aspects
        self.clock = clock
    }

    public var isRunning: Bool { state.withLock { $0.running } }

    /// How many times each page was entered, by page name.
    public var pageCounts: [String: Int] { state.withLock { $0.pageCounts } }

    /// Registers the advice; does nothing when already running.
    public func start() {
        let first = state.withLock { s in
            defer { s.running = true }
            return !s.running
        }
        guard first else { return }
        let tokens = installAdvice()
        state.withLock { $0.tokens += tokens }
    }

    /// Removes the advice; proxies already placed stay silent from now on.
    public func stop() {
        let tokens = state.withLock { s in
            let t = s.tokens
            s.tokens = []
            s.running = false
            return t
        }
        for t in tokens { t.remove() }
    }

    private func installAdvice() -> [AspectToken] {
        var tokens: [AspectToken] = []
        func on<T: AnyObject>(
            _ type: T.Type, _ method: String, _ position: AspectPosition,
            _ body: @escaping @Sendable (HookSystem, T, AspectInvocation) -> Void
        ) {
            tokens.append(
                aspects.hook(type, method, position: position) { [weak self] invocation in
                    guard let self, let object = invocation.instance(as: T.self) else { return }
                    body(self, object, invocation)
                })
        }
        on(UIControl.self, HookPoint.addTarget, .after) { system, control, invocation in
            guard let entry = invocation.returnValue as? TargetActionEntry else { return }
            let proxy = TrackingProxy(targetTypeName: entry.targetTypeName, action: entry.action)
            control.insertProxy(proxy, for: entry) { [weak system] _, sender, events in
                guard let system, let control = sender as? UIControl else { return }
                system.controlFired(control, proxy: proxy, events: events)
            }
        }
        on(UIControl.self, HookPoint.removeTarget, .after) { _, control, _ in control.pruneProxies() }
        on(UIGestureRecognizer.self, HookPoint.gestureAddTarget, .after) { system, recognizer, invocation in
            guard let entry = invocation.returnValue as? TargetActionEntry else { return }
            let proxy = TrackingProxy(targetTypeName: entry.targetTypeName, action: entry.action)
            recognizer.insertProxy(proxy, for: entry) { [weak system] _, sender, _ in
                guard let system, let recognizer = sender as? UIGestureRecognizer else { return }
                system.gestureFired(recognizer, proxy: proxy)
            }
        }
        on(UIGestureRecognizer.self, HookPoint.gestureRemoveTarget, .after) { _, recognizer, _ in recognizer.pruneProxies() }
        on(UITableView.self, HookPoint.didSelectRow, .before) { system, table, invocation in
            guard let indexPath = invocation.argument(0, as: CellIndexPath.self) else { return }
            system.rowSelected(table, at: indexPath)
        }
        on(UIScrollView.self, HookPoint.didEndDragging, .after) { system, scrollView, _ in system.scrolled(scrollView) }
        on(UIViewController.self, HookPoint.viewDidAppear, .after) { system, controller, _ in system.pageEntered(controller) }
        on(UIViewController.self, HookPoint.viewDidDisappear, .after) { system, controller, _ in system.pageLeft(controller) }
        on(UIApplication.self, HookPoint.didFinishLaunching, .before) { system, _, _ in system.appLaunched() }
        on(UIApplication.self, HookPoint.didEnterBackground, .before) { system, _, _ in system.app(.appBackground) }
        on(UIApplication.self, HookPoint.willEnterForeground, .before) { system, _, _ in system.app(.appForeground) }
        return tokens
    }

    // MARK: Turning hooked calls into interactions

    private func controlFired(_ control: UIControl, proxy: TrackingProxy, events: ControlEvents) {
        guard isRunning else { return }
        let value = control.valueInfo
        let place = Placement(of: control)
        observer.observe(
            Interaction(
                kind: events.contains(.valueChanged) ? .valueChanged : .click, node: control,
                eventCode: EventCode(controller: place.codeController, target: proxy.targetName, action: proxy.action.name),
                controlEvents: events, title: control.title, value: value.isEmpty ? nil : value,
                indexPath: place.cell?.indexPath, page: place.page, timestamp: clock.wallMilliseconds()))
    }

    private func gestureFired(_ recognizer: UIGestureRecognizer, proxy: TrackingProxy) {
        guard isRunning, let view = recognizer.view else { return }
        let place = Placement(of: view)
        observer.observe(
            Interaction(
                kind: .gesture, node: view,
                eventCode: EventCode(controller: place.codeController, target: proxy.targetName, action: proxy.action.name),
                title: view.title, indexPath: place.cell?.indexPath, page: place.page, gesture: recognizer.baseName,
                timestamp: clock.wallMilliseconds()))
    }

    private func rowSelected(_ table: UITableView, at indexPath: CellIndexPath) {
        let cell = table.cellForRow(at: indexPath)
        let node: UIView = cell ?? table
        let target = table.delegate.map { TypeName.stripModulePrefix(String(reflecting: type(of: $0))) } ?? table.baseName
        let place = Placement(of: table)
        observer.observe(
            Interaction(
                kind: .listItemClick, node: node,
                eventCode: EventCode(controller: place.codeController, target: target, action: HookPoint.didSelectRow),
                title: cell?.title, indexPath: indexPath, page: place.page, timestamp: clock.wallMilliseconds()))
    }

    private func scrolled(_ scrollView: UIScrollView) {
        let target =
            scrollView.scrollDelegate.map { TypeName.stripModulePrefix(String(reflecting: type(of: $0))) } ?? scrollView.baseName
        let place = Placement(of: scrollView)
        observer.observe(
            Interaction(
                kind: .scroll, node: scrollView,
                eventCode: EventCode(controller: place.codeController, target: target, action: HookPoint.didEndDragging),
                value: ControlValue(value: scrollView.contentOffset), page: place.page, timestamp: clock.wallMilliseconds()))
    }

    private func pageEntered(_ controller: UIViewController) {
        guard !controller.isContainer else { return }
        let page = ViewPath.elementName(of: controller)
        let now = clock.monotonicNanoseconds()
        let count = state.withLock { s in
            s.pageStarts[ObjectIdentifier(controller)] = now
            s.pageCounts[page, default: 0] += 1
            return s.pageCounts[page]!
        }
        observer.observe(
            Interaction(
                kind: .pageEnter, node: controller, title: controller.title, page: page, pageCount: count,
                timestamp: clock.wallMilliseconds()))
    }

    private func pageLeft(_ controller: UIViewController) {
        guard !controller.isContainer else { return }
        let page = ViewPath.elementName(of: controller)
        let now = clock.monotonicNanoseconds()
        let (start, count) = state.withLock { s in
            (s.pageStarts.removeValue(forKey: ObjectIdentifier(controller)), s.pageCounts[page])
        }
        // A page that appeared before the hooks started has no known start: no duration rather than a wrong one.
        let duration = start.map { Int64((now &- $0) / 1_000_000) }
        observer.observe(
            Interaction(
                kind: .pageLeave, node: controller, title: controller.title, duration: duration, page: page,
                pageCount: count, timestamp: clock.wallMilliseconds()))
    }

    private func appLaunched() {
        let first = state.withLock { s in
            defer { s.launched = true }
            return !s.launched
        }
        if first { app(.appStart) }
    }

    private func app(_ kind: Interaction.Kind) {
        observer.observe(Interaction(kind: kind, timestamp: clock.wallMilliseconds()))
    }

    // MARK: Helpers

    /// The page a node belongs to: the name of the first controller at or above it (with alias).
    public static func pageName(of node: any ViewNode) -> String? {
        var n: (any ViewNode)? = node
        while let current = n {
            if current.role == .controller { return current.pathName }
            n = current.parentNode
        }
        return nil
    }
}

/// The object placed beside a real target: it remembers whose action it shadows.
final class TrackingProxy {
    /// The target's type name without module prefix, computed once.
    let targetName: String
    let action: ActionName

    init(targetTypeName: String, action: ActionName) {
        self.targetName = TypeName.stripModulePrefix(targetTypeName)
        self.action = action
    }
}

/// Where a view sits, found in one walk up the tree: what an interaction names it by.
struct Placement {
    /// The `Controller` of an event code (viewpath.md §4): the first controller or window, or the topmost node.
    var codeController: String
    /// The page: the first controller's name with alias; nil when a window or the top comes first.
    var page: String?
    /// The first cell at or above the view.
    var cell: UITableViewCell?

    init(of view: UIView) {
        var node: any ViewNode = view
        var cell: UITableViewCell?
        while true {
            if cell == nil, node.role == .cell { cell = node as? UITableViewCell }
            if node.role == .controller || node.role == .window { break }
            guard let parent = node.parentNode else { break }
            node = parent
        }
        let name = (node as? UIResponder)?.baseName ?? TypeName.stripModulePrefix(node.typeName)
        codeController = name
        if node.role == .controller { page = node.pathName }  // rule 3's name, with the alias
        self.cell = cell
    }
}
