import EventModel
public import Interactions
import KVCConfig
public import ObjCRuntime
import SystemCalls
public import ViewIdentity

/// Codeless tracking of an AppKit (GNUstep) application: methods of AppKit's own classes are
/// replaced through the runtime layer, and what the user does becomes `Interaction`s for an
/// observer (the `Tracker`), synchronously on the main thread, with the live objects as nodes
/// (docs/objc.md).
///
/// - `-[NSApplication sendAction:to:from:]`: every button, matrix cell, menu item and key
///   equivalent; the code is `Controller#Target#Action` (docs/viewpath.md §6), a nil target
///   resolved with `targetForAction:to:from:`.
/// - `-[NSWindow orderWindow:relativeTo:]` (what ordering front, out and closing come to): pages.
///
/// Create, `start()` and use on the main thread. The original implementations always run.
public final class AppKitHookSystem {
    public let observer: any InteractionObserver
    public let clock: any InteractionClock
    /// Where each entered page's tree is written (view-tree JSON with frames); nil writes none.
    public let treeDirectory: String?
    private var hooks: [MethodHook] = []
    private var pages: AppKitPages!
    private var foregroundTime = ForegroundTime()
    public private(set) var started = false
    /// Called with each page entered, its window and its node (tree files, pictures).
    public var onPageEnter: ((ObjCObject, AppKitNode) -> Void)?

    private var scrolling: AppKitScrolling!
    /// Watches the pages shown for impressions when the observer has impression rules.
    private var impressions: AppKitImpressions?

    private var camera: AppKitSnapshots?
    /// Circle mode: the pages shown are pictured, then each page entered (docs/objc.md "Pictures").
    public private(set) var circleMode = false

    /// `snapshots` receives each picture taken in circle mode, on the main thread; it must not
    /// block. Without it none are taken.
    public init(
        observer: any InteractionObserver, clock: any InteractionClock = SystemInteractionClock(), treeDirectory: String? = nil,
        snapshots: ((PageSnapshot) -> Void)? = nil
    ) {
        self.observer = observer
        self.clock = clock
        self.treeDirectory = treeDirectory
        camera = snapshots.map { AppKitSnapshots(clock: clock, send: $0) }
        pages = AppKitPages(clock: clock) { [unowned self] in self.observer.observe($0) }
        scrolling = AppKitScrolling(clock: clock) { [unowned self] in self.observer.observe($0) }
        impressions = (observer as? any ImpressionRules).map { rules in
            AppKitImpressions(rules: rules, clock: clock, windows: { [unowned self] in self.pages.shownWindows }) { [unowned self] in
                self.observer.observe($0)
            }
        }
        pages.onLeave = { [unowned self] window in self.scrolling.pageLeft(window) }
        pages.onEnter = { [unowned self] window, node in
            self.scrolling.pageEntered(window)
            self.impressions?.pageEntered(node)
            if let treeDirectory = self.treeDirectory { AppKitTrees.write(page: node, window: window, directory: treeDirectory) }
            if self.circleMode { self.pictureSoon(window) }
            self.onPageEnter?(window, node)
        }
    }

    /// Turns circle mode on or off (on the main thread); turned on, every page shown is pictured.
    public func setCircleMode(_ on: Bool) {
        guard on != circleMode else { return }
        circleMode = on
        guard on, started else { return }
        for window in pages.shownWindows { pictureSoon(window) }
    }

    /// Sets circle mode from any thread (the config refresher's): the change is made on the main
    /// thread. Valid once `start()` was called, which keeps the system alive for the process.
    public var circleModeSetter: @Sendable (Bool) -> Void {
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        return { on in
            MainThread.async {
                guard let system = UnsafeMutableRawPointer(bitPattern: address) else { return }
                Unmanaged<AppKitHookSystem>.fromOpaque(system).takeUnretainedValue().setCircleMode(on)
            }
        }
    }

    /// Pictures `window` at the main run loop's next turn, once it has laid out and drawn what the
    /// ordering showed; a window gone by then is skipped.
    private func pictureSoon(_ window: ObjCObject) {
        guard camera != nil else { return }
        window.retain()
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        let windowAddress = UInt(bitPattern: window.pointer)
        MainThread.async {
            guard let system = UnsafeMutableRawPointer(bitPattern: address), let w = UnsafeMutableRawPointer(bitPattern: windowAddress) else {
                return
            }
            let me = Unmanaged<AppKitHookSystem>.fromOpaque(system).takeUnretainedValue()
            let window = ObjCObject(w)
            if me.circleMode, me.pages.shownWindows.contains(window) { me.camera?.take(window) }
            window.release()
        }
    }

    /// Installs the hooks and reports `app_start`. Throws when AppKit's methods are not there
    /// (the process has no AppKit).
    public func start() throws(ObjCError) {
        guard !started else { return }
        guard let application = ObjCClass.named("NSApplication"), let window = ObjCClass.named("NSWindow") else {
            throw ObjCError(.unknownClass, subject: "NSApplication")
        }
        hooks.append(
            try MethodHook(cls: application, selector: "sendAction:to:from:", phases: [.before]) { [unowned self] _, call in
                if let action = call.selector(at: 0) {
                    self.actionSent(action, to: call.object(at: 1), from: call.object(at: 2), application: call.receiver)
                }
                return false
            })
        hooks.append(
            try MethodHook(cls: window, selector: "orderWindow:relativeTo:", phases: [.after]) { [unowned self] _, call in
                self.windowOrdered(call.receiver, place: call.int32(at: 0))
                return false
            })
        // Scrolling: the wheel reaches the scroll view (its scrollers' actions come through sendAction).
        if let scrollView = AppKit.scrollViewClass {
            hooks.append(
                try MethodHook(cls: scrollView, selector: "scrollWheel:", phases: [.before]) { [unowned self] _, call in
                    self.scrolling.moved(call.receiver)
                    return false
                })
        }
        // Foreground and background: the app is activated and deactivated (docs/objc.md).
        hooks.append(
            try MethodHook(cls: application, selector: "activateIgnoringOtherApps:", phases: [.after]) { [unowned self] _, _ in
                self.activeChanged(true)
                return false
            })
        hooks.append(
            try MethodHook(cls: application, selector: "deactivate", phases: [.after]) { [unowned self] _, _ in
                self.activeChanged(false)
                return false
            })
        started = true
        impressions?.start()
        // The runtime calls the hooks for as long as the process runs: the system stays alive.
        _ = Unmanaged.passRetained(self)
        observer.observe(foregroundTime.interaction(.appStart, clock: clock))
    }

    /// Leaves every page shown, reports `app_end` and puts the original methods back.
    public func stop() {
        guard started else { return }
        impressions?.stop()
        scrolling.restAll()
        pages.leaveAll()
        observer.observe(foregroundTime.interaction(.appEnd, clock: clock))
        for h in hooks { h.remove() }
        hooks = []
        started = false
    }

    // MARK: Target-action

    /// The last action's node: the next action's is made again from it (`AppKitNode.remade`).
    private var lastNode: AppKitNode?
    /// The last action's path: the next action's is that path again when its elements are the same.
    private var lastPath: ViewPath?

    /// The last action's selector and its name: a registered selector lives, named so, as long as the process.
    private var lastAction: (selector: ObjCSelector, name: String)?

    private func name(of action: ObjCSelector) -> String {
        if let last = lastAction, last.selector == action { return last.name }
        let name = action.name
        lastAction = (action, name)
        return name
    }

    private func actionSent(_ action: ObjCSelector, to target: ObjCObject?, from sender: ObjCObject?, application: ObjCObject) {
        guard let sender else { return }
        let resolved = target ?? ((try? application.send(AppKit.targetForAction, action, nil, sender)) ?? nil)
        let kinds = sender.kinds(of: AppKit.senderClasses)
        // A scroller moving its scroll view (a knob drag, a click in the track): a scroll, not a click.
        if kinds.contains(.scroller), let scrollView = AppKit.scrollViewClass,
            let view = resolved, view.isKind(of: scrollView)
        {
            return scrolling.moved(view)
        }
        let targetName = resolved?.className ?? "nil"
        var kind = Interaction.Kind.click
        var value: ControlValue?
        var node: AppKitNode
        let page: String
        var last = lastNode.take()
        if kinds.contains(.menuItem) {
            // An item of a pop-up button's menu tells its cell, and the pop-up then sends its own
            // action (a `value_changed` with the choice): the item's hop is not the user's click.
            if let cell = AppKit.popUpCellClass, let resolved, resolved.isKind(of: cell) { return }
            // A menu item or a key equivalent: the key window's page.
            node = AppKitNode.remade(.menuItem(sender), from: &last)
            let key = ((try? application.send(AppKit.keyWindow)) ?? nil) ?? ((try? application.send(AppKit.mainWindow)) ?? nil)
            page = AppKit.pageName(of: key) ?? "NSMenu"
        } else {
            node = AppKitNode.remade(.view(sender), from: &last)
            // The page's owner comes with the node's window, which the walk up to the page shares.
            page = node.windowPageOwner?.className ?? sender.className
            if kinds.contains(.matrix) {
                let row = (try? sender.integer(AppKit.selectedRow)) ?? -1
                let column = (try? sender.integer(AppKit.selectedColumn)) ?? -1
                if row >= 0, column >= 0, let cell = (try? sender.send(AppKit.selectedCell)) ?? nil {
                    node = AppKitNode.remade(.matrixCell(matrix: sender, cell: cell, row: row, column: column), from: &last)
                    // A radio matrix (NSRadioModeMatrix) chooses; other matrices are grids of buttons.
                    if (try? sender.integer(AppKit.mode)) == 0 {
                        kind = .valueChanged
                        let columns = max((try? sender.integer(AppKit.numberOfColumns)) ?? 1, 1)
                        value = ControlValue(selectedIndex: row * columns + column)
                    }
                }
            } else if kinds.contains(.table) {
                let row = (try? sender.integer(AppKit.clickedRow)) ?? -1
                let selected = row >= 0 ? row : ((try? sender.integer(AppKit.selectedRow)) ?? -1)
                if selected >= 0 {
                    node = AppKitNode.remade(.tableRow(table: sender, row: selected), from: &last)
                    kind = .listItemClick
                }
            } else if kinds.contains(.slider) {
                kind = .valueChanged
                value = ControlValue(value: (try? sender.double(AppKit.doubleValue)) ?? 0)
            } else if kinds.contains(.stepper) {
                kind = .valueChanged
                value = ControlValue(value: (try? sender.double(AppKit.doubleValue)) ?? 0)
            } else if kinds.contains(.popUp) {
                kind = .valueChanged
                value = ControlValue(selectedIndex: (try? sender.integer(AppKit.indexOfSelectedItem)) ?? -1)
            } else if kinds.contains(.button), AppKit.isToggle(sender) {
                kind = .valueChanged
                value = ControlValue(isOn: ((try? sender.integer(AppKit.state)) ?? 0) == 1)
            } else if kinds.contains(.textField) {
                // The end of editing: never the text.
                kind = .valueChanged
            }
        }
        lastNode = node
        last = nil
        guard !node.isInIgnoredView else { return }
        let path = ViewPath(of: node, reusing: lastPath)
        lastPath = path
        let title = node.title
        var interaction = Interaction(
            kind: kind, node: node, eventCode: EventCode(controller: page, target: targetName, action: name(of: action)), title: title,
            value: value, indexPath: node.cellIndexPath, page: page, timestamp: clock.wallMilliseconds())
        interaction.knownPath = path
        interaction.knownNodeTitle = .some(title)
        observer.observe(interaction)
    }

    // MARK: Foreground and background

    private func activeChanged(_ now: Bool) {
        guard started else { return }
        if let change = foregroundTime.activity(now, clock: clock) { observer.observe(change) }
    }

    // MARK: Pages

    private func windowOrdered(_ window: ObjCObject, place: Int32) {
        if place == ObjCRuntimeConstants.windowOut {
            pendingWindows.remove(UInt(bitPattern: window.pointer))
            pages.windowLeft(window)
        } else if AppKit.isPageWindow(window) {
            // A document window is often ordered in before its controller is set: a window that
            // would be its own page is entered at the run loop's next turn, by the name it has then.
            guard AppKit.pageOwner(of: window) == window else { return pages.windowEntered(window) }
            let key = UInt(bitPattern: window.pointer)
            guard pendingWindows.insert(key).inserted else { return }
            window.retain()
            let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
            MainThread.async {
                guard let system = UnsafeMutableRawPointer(bitPattern: address), let w = UnsafeMutableRawPointer(bitPattern: key) else { return }
                let me = Unmanaged<AppKitHookSystem>.fromOpaque(system).takeUnretainedValue()
                let window = ObjCObject(w)
                if me.started, me.pendingWindows.remove(key) != nil { me.pages.windowEntered(window) }
                window.release()
            }
        }
    }

    /// Windows ordered in whose page is entered at the next turn (not ordered out since).
    private var pendingWindows: Set<UInt> = []
}

extension AppKit {
    /// The classes a target-action's sender is told by (`actionSent`), asked in one walk of its class chain.
    enum SenderKind: Int, CaseIterable {
        case scroller, menuItem, matrix, table, slider, stepper, popUp, button, textField

        var objcClass: ObjCClass? {
            switch self {
            case .scroller: return scrollerClass
            case .menuItem: return menuItemClass
            case .matrix: return matrixClass
            case .table: return tableViewClass
            case .slider: return sliderClass
            case .stepper: return stepperClass
            case .popUp: return popUpClass
            case .button: return buttonClass
            case .textField: return textFieldClass
            }
        }
    }

    static let senderClasses = ObjCClassList(SenderKind.allCases.map(\.objcClass))

    /// A switch (checkbox) or radio button: its cell shows its state by its contents
    /// (`NSContentsCellMask`) with the switch or radio image (GNUstep's `GSSwitch`, `GSRadio`;
    /// Apple's `NSSwitch`, `NSRadioButton`). Every other button reports clicks, whatever its
    /// highlighting (GNUstep marks momentary-change buttons with the contents mask too).
    static func isToggle(_ button: ObjCObject) -> Bool {
        guard let cell = (try? button.send(buttonType)) ?? nil else { return false }
        let shows = (try? cell.integer(showsStateBy)) ?? 0
        guard shows & 1 != 0, let image = (try? cell.send(imageSelector)) ?? nil, let name = string(image, nameSelector) else { return false }
        return ["GSSwitch", "GSRadio", "NSSwitch", "NSRadioButton"].contains { name.hasPrefix($0) }
    }
}

extension ObjCKinds {
    func contains(_ kind: AppKit.SenderKind) -> Bool { contains(kind.rawValue) }
}
