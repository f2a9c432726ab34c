import CGtk
public import Interactions
public import KVCConfig
public import ViewIdentity

/// Codeless tracking of a GTK 4 application: process-wide emission hooks turn what the user does
/// into `Interaction`s for an observer (the `Tracker`), synchronously on the GTK thread, with the
/// live widget as the node (docs/gtk.md).
///
/// Create, `start()` and use on the GTK thread (the thread that runs GTK's main loop). Nothing
/// here blocks: the observer should hand events to its own thread, as the tracker does.
public final class GtkHookSystem {
    public let observer: any InteractionObserver
    public let clock: any InteractionClock
    /// Where each entered page's widget tree is written (docs/gtk.md "Trees"); nil writes none.
    public let treeDirectory: String?

    private let gate = GtkInputGate()
    private var pages: GtkPages!
    private var hooks: [GtkSignalHook] = []
    private var iterations: GtkMainLoopIterations?
    private var trees: GtkTreeWriter?
    private var camera: GtkSnapshots?
    /// The plan's `ignore` patterns, asked at each snapshot: the views they cover are blanked
    /// (docs/privacy.md). The tracker silences their events itself.
    public var ignorePatterns: () -> [IgnorePattern] = { [] }
    /// Watches the windows for impressions when the observer has impression rules (GtkImpressions.swift).
    private var impressions: GtkImpressions?
    /// Scrolled windows the user moves, reported at rest (GtkScrolling.swift).
    private var scrolling: GtkScrolling!
    /// Web views' page loads and clicks, from a user script of each (GtkWebViews.swift).
    private var webViews: GtkWebViews!
    /// Circle mode (docs/gtk.md "Snapshots"): the pages shown are snapshotted, then each page entered.
    public private(set) var circleMode = false
    /// A gesture seen in the event being handled, reported when no other interaction came of it.
    private var pendingGesture: Interaction?
    /// A multiple click (a double click's second release) seen in the event being handled,
    /// reported after whatever else came of it (a button's `clicked`).
    private var pendingTaps: Interaction?
    /// The number of the input event that last produced an interaction (no gesture comes of it).
    private var reportedInput = -1
    /// Switches the user clicked or activated, until their state is set (docs/gtk.md).
    private var armedSwitches: Set<UInt> = []
    /// The app's time in the foreground, for `app_background` and `app_end`, and whether some
    /// window of the app was active when last checked.
    private var foregroundTime = ForegroundTime()
    private var activityCheckScheduled = false
    private(set) public var started = false

    /// `snapshots` receives each snapshot taken in circle mode, on the GTK thread; it must not
    /// block. Without it none are taken.
    public init(
        observer: any InteractionObserver, clock: any InteractionClock = SystemInteractionClock(), treeDirectory: String? = nil,
        snapshots: ((PageSnapshot) -> Void)? = nil
    ) {
        self.observer = observer
        self.clock = clock
        self.treeDirectory = treeDirectory
        pages = GtkPages(clock: clock) { [unowned self] in self.observer.observe($0) }
        trees = treeDirectory.map { GtkTreeWriter(directory: $0) }
        camera = snapshots.map { GtkSnapshots(clock: clock, ignorePatterns: { [unowned self] in self.ignorePatterns() }, send: $0) }
        impressions = observer.offered((any ImpressionRules).self).map { rules in
            GtkImpressions(rules: rules, clock: clock) { [unowned self] in self.observer.observe($0) }
        }
        scrolling = GtkScrolling(gate: gate, clock: clock) { [unowned self] in self.observer.observe($0) }
        webViews = GtkWebViews(clock: clock, pageOf: { [unowned self] in self.eventPage($0, $1) }) { [unowned self] in
            self.observer.observe($0)
        }
        pages.onEnter = { [unowned self] page in
            if let widget = page.widget { self.scrolling.pageEntered(widget) }
            self.impressions?.pageEntered(page)
            self.trees?.writeAfterNextPaint(page)
            if self.circleMode { self.camera?.takeAfterNextPaint(page) }
        }
    }

    /// Turns circle mode on or off (on the GTK thread). Turned on, the pages shown now (and the
    /// windows that hold them) are snapshotted after their next paint, and every page entered
    /// afterwards; turned off, no more are taken.
    public func setCircleMode(_ on: Bool) {
        guard on != circleMode else { return }
        circleMode = on
        guard on, let camera, started else { return }
        let shown = pages.shown
        for window in shown.windows where GtkWidgetNode.node(for: window).role == .window {
            camera.takeAfterNextPaint(GtkWidgetNode.node(for: window))
        }
        for page in shown.pages { camera.takeAfterNextPaint(GtkWidgetNode.node(for: page)) }
    }

    /// A function that sets circle mode from any thread (the config refresher's): the change is
    /// made on the GTK thread at its next idle moment. Valid once `start()` was called, which keeps
    /// the system alive for the rest of the process.
    public var circleModeSetter: @Sendable (Bool) -> Void {
        let address = UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        return { on in
            let request = CircleModeRequest(system: address, on: on)
            _ = g_idle_add_full(
                Int32(G_PRIORITY_DEFAULT_IDLE),
                { data in
                    guard let data else { return 0 }
                    let request = Unmanaged<CircleModeRequest>.fromOpaque(data).takeUnretainedValue()
                    guard let system = UnsafeMutableRawPointer(bitPattern: request.system) else { return 0 }
                    Unmanaged<GtkHookSystem>.fromOpaque(system).takeUnretainedValue().setCircleMode(request.on)
                    return 0
                }, Unmanaged.passRetained(request).toOpaque(), { data in
                    guard let data else { return }
                    Unmanaged<CircleModeRequest>.fromOpaque(data).release()
                })
        }
    }

    /// How many input events GTK handled since `start()`.
    public var inputEvents: Int { gate.inputs }

    /// Installs the hooks and reports `app_start`. Windows already shown are entered as pages.
    public func start() {
        guard !started else { return }
        started = true
        // GLib keeps calling the hooks and handlers installed below for as long as the process
        // runs, so the system stays alive from here on.
        _ = Unmanaged.passRetained(self)
        install()
        iterations = GtkMainLoopIterations { [unowned self] in self.iterationStarted() }
        observer.observe(foregroundTime.interaction(.appStart, clock: clock))
        impressions?.start()
        for window in GtkHookSystem.toplevels() where gtk_widget_get_mapped(window.assumingMemoryBound(to: GtkWidget.self)) != 0 {
            pages.windowMapped(window)
        }
    }

    /// Leaves every page shown (with its dwell), reports `app_end` (with the foreground time) and
    /// removes the hooks: the app is ending.
    public func stop() {
        guard started else { return }
        flushGesture()
        scrolling.restAll()
        pages.leaveAll()
        impressions?.stop()
        observer.observe(foregroundTime.interaction(.appEnd, clock: clock))
        for h in hooks { h.remove() }
        hooks = []
        iterations?.stop()
        iterations = nil
        started = false
    }

    /// Benchmarks only (`Tools/gtk-bench`): until called again with nil, signals are handled as if
    /// the user's pointer event aimed at `widget` were being handled, since a process cannot feed
    /// itself real input events in GTK 4.
    package func _simulateInput(aimedAt widget: GObjectPointer?) {
        gate.simulatedTarget = widget
        if widget != nil { reportedInput = -1 }
    }

    // MARK: Hooks

    /// Hooks every signal followed (docs/gtk.md "Event codes and kinds"), each with the step
    /// below that handles it.
    private func install() {
        hook(.surfaceEvent) { [unowned self] in self.gate.record($0.event) }
        hook(.clicked) { [unowned self] in self.clicked($0) }
        hook(.toggled) { [unowned self] in self.toggled($0) }
        hook(.switchStateSet) { [unowned self] in self.switchStateSet($0) }
        hook(.switchActivate) { [unowned self] in self.armSwitch($0.switch) }
        hook(.valueChanged) { [unowned self] in self.valueChanged($0) }
        hook(.rowActivated) { [unowned self] in self.control($0.list, kind: .listItemClick, action: "row-activated", node: $0.row) }
        hook(.listActivate) { [unowned self] in self.listActivated($0) }
        hook(.clickReleased) { [unowned self] in self.clickReleased($0) }
        hook(.longPressed) { [unowned self] in self.gestureRecognized($0, kind: .longPress) }
        hook(.swiped) { [unowned self] in
            // A swipe is a drag that ends moving; a press released where it was held is none.
            if ($0.first * $0.first + $0.second * $0.second) >= GtkHookSystem.swipeSpeed * GtkHookSystem.swipeSpeed {
                self.gestureRecognized($0, kind: .swipe)
            }
        }
        hook(.dragEnded) { [unowned self] in
            if $0.first != 0 || $0.second != 0 { self.gestureRecognized($0, kind: .pan) }
        }
        hook(.map) { [unowned self] in self.widgetMapped($0.widget) }
        hook(.unmap) { [unowned self] in self.widgetUnmapped($0.widget) }
        hook(.listItemBind) { GtkListItems.remember(item: $0.item) }
        hook(.adjustmentValueChanged) { [unowned self] in if self.started { self.scrolling.adjustmentChanged($0.adjustment) } }
    }

    private func hook<Arguments>(_ signal: GtkSignal<Arguments>, _ body: @escaping (Arguments) -> Void) {
        hooks += GtkSignalHook.install(signal, body)
    }

    private func clicked(_ args: ButtonClicked) {
        // A toggle button reports its toggle, not the click that caused it.
        guard cgtk_is_toggle_button(args.button) == 0, !GtkHookSystem.isPartOfControl(args.button) else { return }
        control(args.button, kind: .click, action: "clicked")
    }

    private func toggled(_ args: ButtonToggled) {
        guard !GtkHookSystem.isPartOfControl(args.button) else { return }
        control(args.button, kind: .valueChanged, action: "toggled", value: ControlValue(isOn: args.active))
    }

    private func switchStateSet(_ args: SwitchStateSet) {
        // A switch the user flipped animates first and sets its state when the slide ends.
        let armed = armedSwitches.remove(UInt(bitPattern: args.switch)) != nil
        control(args.switch, kind: .valueChanged, action: "state-set", value: ControlValue(isOn: args.state), byUser: armed)
    }

    /// The user clicked or activated a switch: its `state-set` at the end of its slide counts.
    private func armSwitch(_ widget: GObjectPointer) {
        guard gate.allows(widget) else { return }
        armedSwitches.insert(UInt(bitPattern: widget))
    }

    private func valueChanged(_ args: ValueChanged) {
        control(args.control, kind: .valueChanged, action: "value-changed", value: ControlValue(value: args.value))
    }

    private func listActivated(_ args: ListActivated) {
        let list = args.list
        // A column view's inner list view activates too; its column view reports.
        if cgtk_is_list_view(list) != 0, let parent = gtk_widget_get_parent(list.assumingMemoryBound(to: GtkWidget.self)),
            cgtk_is_column_view(parent) != 0
        {
            return
        }
        let row = GtkListItems.row(of: list, at: args.position) ?? gate.target.flatMap { GtkListItems.row(containing: $0) }
        if let row { GtkListItems.remember(row: row, position: args.position) }
        control(list, kind: .listItemClick, action: "activate", node: row, indexPath: CellIndexPath(section: 0, row: args.position))
    }

    private func clickReleased(_ args: ClickReleased) {
        let widget = args.widget
        if cgtk_is_switch(widget) != 0 {
            // The switch's own click: it will set its state when its slide ends.
            if started, gate.allows(widget) {
                armedSwitches.insert(UInt(bitPattern: widget))
                reportedInput = gate.inputs
            }
            return
        }
        if args.pressCount >= 2 {
            taps(widget, recognizer: GObjectValue.typeName(of: args.gesture), count: args.pressCount)
        } else {
            gesture(widget, recognizer: GObjectValue.typeName(of: args.gesture))
        }
    }

    /// A release ending several clicks in a row (n_press ≥ 2): one `gesture` of kind `tap` with
    /// the tap count, whatever else the click did (a button's second `clicked`), from the first
    /// click gesture of the release (the innermost widget's).
    private func taps(_ widget: GObjectPointer, recognizer: String, count: Int) {
        guard started, pendingTaps == nil, !GtkHookSystem.ownsGestures(widget), gate.allows(widget) else { return }
        let node = GtkWidgetNode.node(for: widget)
        let placement = ViewPlacement(of: node)
        var interaction = Interaction(
            kind: .gesture, node: node, eventCode: GtkEventCodes.code(sender: node, page: placement.codeController, signal: "released"),
            title: node.title, indexPath: placement.cell?.cellIndexPath, page: eventPage(placement, node),
            gesture: recognizer, tapCount: count, timestamp: clock.wallMilliseconds())
        interaction.gestureKind = .tap
        pendingTaps = interaction
    }

    /// A long press, swipe or drag recognized by one of the app's gesture controllers: reported
    /// at once. The user made it when an input event is being handled or the gesture holds a
    /// sequence (a long press is recognized in a timeout, with the button still held). Gestures
    /// of GTK's own widgets (scrollbars, text, lists, windows…) are their machinery, not the app's.
    private func gestureRecognized(_ args: GestureSignal, kind: GestureKind) {
        guard started, !GtkHookSystem.ownsMotionGestures(args.widget),
            gate.isHandlingInput || gtk_gesture_is_active(OpaquePointer(args.gesture)) != 0
        else { return }
        let node = GtkWidgetNode.node(for: args.widget)
        let location = ViewLocation(of: node)
        let placement = location.placement
        let signal = kind == .longPress ? "pressed" : kind == .swipe ? "swipe" : "drag-end"
        var interaction = Interaction(
            kind: .gesture, node: node, eventCode: GtkEventCodes.code(sender: node, page: placement.codeController, signal: signal),
            title: node.title, indexPath: placement.cell?.cellIndexPath, page: eventPage(placement, node),
            gesture: GObjectValue.typeName(of: args.gesture), timestamp: clock.wallMilliseconds())
        interaction.gestureKind = kind
        interaction.knownPath = location.path
        observer.observe(interaction)
    }

    /// `notify` cannot be hooked process-wide (GLib forbids emission hooks on it), so the widgets
    /// whose property changes matter get a handler of their own when they are first shown.
    private func widgetMapped(_ w: GObjectPointer) {
        guard started else { return }
        if cgtk_is_window(w) != 0 {
            GtkNotifyHandler.connect(w, .isActive) { [unowned self] _ in self.scheduleActivityCheck() }
            pageChanged { pages.windowMapped(w) }
            // The whole window too: what lies outside its pages (header bars, switchers).
            let window = GtkWidgetNode.node(for: w)
            trees?.writeAfterNextPaint(window)
            // A window that is its own page was snapshotted as the page entered.
            if circleMode, window.role == .window { camera?.takeAfterNextPaint(window) }
        } else if cgtk_is_stack(w) != 0 {
            GtkNotifyHandler.connect(w, .visibleChild) { [unowned self] stack in
                self.pageChanged { self.pages.stackChanged(stack) }
            }
        } else if cgtk_is_drop_down(w) != 0 {
            GtkNotifyHandler.connect(w, .selected) { [unowned self] dropDown in self.selectionChanged(dropDown) }
        } else if cgtk_is_scrolled_window(w) != 0 {
            scrolling.watch(w)
        } else {
            webViews.mapped(w)
        }
    }

    private func widgetUnmapped(_ w: GObjectPointer) {
        guard cgtk_is_window(w) != 0 else { return }
        pageChanged { pages.windowUnmapped(w) }
    }

    private func selectionChanged(_ w: GObjectPointer) {
        let index = gtk_drop_down_get_selected(OpaquePointer(w))
        var title: String?
        if let item = gtk_drop_down_get_selected_item(OpaquePointer(w)), cgtk_is_string_object(item) != 0 {
            title = GObjectProperty.string.read(item)
        }
        control(
            w, kind: .valueChanged, action: "notify::selected",
            value: ControlValue(selectedIndex: index == UInt32.max ? nil : Int(index)), title: title)
    }

    // MARK: Interactions

    /// A control's signal: reported when the user caused it (`GtkInputGate`).
    private func control(
        _ widget: GObjectPointer, kind: Interaction.Kind, action: String, value: ControlValue? = nil,
        title: String? = nil, node target: GObjectPointer? = nil, indexPath: CellIndexPath? = nil, byUser: Bool = false
    ) {
        guard started, byUser || gate.allows(widget) else { return }
        pendingGesture = nil
        reportedInput = gate.inputs
        let sender = GtkWidgetNode.node(for: widget)
        let node = target.map { GtkWidgetNode.node(for: $0) } ?? sender
        // One walk up from the node gives its placement and its path; the tracker walks nothing.
        let location = ViewLocation(of: node)
        let placement = location.placement
        let senderPlacement = target == nil ? placement : ViewPlacement(of: sender)
        let nodeTitle = node.title
        var interaction = Interaction(
            kind: kind, node: node,
            eventCode: GtkEventCodes.code(sender: sender, page: senderPlacement.codeController, signal: action),
            title: title ?? nodeTitle, value: value, indexPath: indexPath ?? placement.cell?.cellIndexPath,
            page: eventPage(placement, node), timestamp: clock.wallMilliseconds())
        interaction.knownPath = location.path
        interaction.knownNodeTitle = .some(nodeTitle)
        observer.observe(interaction)
    }

    /// A click gesture's release: kept until the event is handled, and dropped if a control's
    /// signal (a button's `clicked`, a row's activation, a scale's value…) or a page change came
    /// of the same click (since its press).
    private func gesture(_ widget: GObjectPointer, recognizer: String) {
        guard started, pendingGesture == nil, reportedInput < gate.lastPress, !GtkHookSystem.ownsGestures(widget),
            gate.allows(widget)
        else { return }
        let node = GtkWidgetNode.node(for: widget)
        let placement = ViewPlacement(of: node)
        var interaction = Interaction(
            kind: .gesture, node: node, eventCode: GtkEventCodes.code(sender: node, page: placement.codeController, signal: "released"),
            title: node.title, indexPath: placement.cell?.cellIndexPath, page: eventPage(placement, node),
            gesture: recognizer, tapCount: 1, timestamp: clock.wallMilliseconds())
        interaction.gestureKind = .tap
        pendingGesture = interaction
    }

    /// The page an interaction counts on: the page it is in; outside any page (a header bar, a
    /// window that is its own page), the page shown beneath it, and in a dialog the page of the
    /// window it was opened over (`GtkPages.presentingPage`), as the UIKit model counts
    /// navigation-bar and alert taps on the presenting page. Event codes still name the window.
    private func eventPage(_ placement: ViewPlacement, _ node: GtkWidgetNode) -> String {
        let own = placement.page ?? placement.codeController
        if let page = placement.controller as? GtkWidgetNode, let w = page.widget, cgtk_is_window(w) == 0 { return own }
        guard let w = node.widget, let root = gtk_widget_get_root(w.assumingMemoryBound(to: GtkWidget.self)),
            cgtk_is_window(UnsafeMutableRawPointer(root)) != 0
        else { return own }
        return pages.presentingPage(of: UnsafeMutableRawPointer(root)) ?? own
    }

    private func pageChanged(_ body: () -> Void) {
        guard started else { return }
        if gate.isHandlingInput {
            pendingGesture = nil
            reportedInput = gate.inputs
        }
        body()
    }

    private func iterationStarted() {
        flushGesture()
        gate.endIteration()
    }

    private func flushGesture() {
        if let g = pendingGesture {
            pendingGesture = nil
            observer.observe(g)
        }
        if let t = pendingTaps {
            pendingTaps = nil
            observer.observe(t)
        }
    }

    // MARK: Foreground and background

    private func scheduleActivityCheck() {
        guard !activityCheckScheduled else { return }
        activityCheckScheduled = true
        // Checked once focus has settled, so moving between two windows of the app is no change.
        _ = g_idle_add_full(
            Int32(G_PRIORITY_DEFAULT_IDLE),
            { data in
                guard let data else { return 0 }
                Unmanaged<GtkHookSystem>.fromOpaque(data).takeUnretainedValue().checkActivity()
                return 0
            }, Unmanaged.passRetained(self).toOpaque(), { data in
                guard let data else { return }
                Unmanaged<GtkHookSystem>.fromOpaque(data).release()
            })
    }

    private func checkActivity() {
        activityCheckScheduled = false
        guard started else { return }
        let active = GtkHookSystem.toplevels().contains { gtk_window_is_active($0.assumingMemoryBound(to: GtkWindow.self)) != 0 }
        if let change = foregroundTime.activity(active, clock: clock) { observer.observe(change) }
    }

    // MARK: Helpers

    /// Widgets whose click gestures are GTK's own machinery (moving and focusing windows, editing
    /// text), not taps on content.
    private static let machineryTypes: [GType] = [
        gtk_window_get_type(), gtk_window_handle_get_type(), gtk_header_bar_get_type(), gtk_text_get_type(),
    ]

    static func ownsGestures(_ widget: GObjectPointer) -> Bool {
        // A web view's clicks are reported from inside the page (GtkWebViews).
        machineryTypes.contains { cgtk_is_a(widget, $0) != 0 } || GtkWebViews.isWebView(widget)
    }

    /// A swipe slower than this (pixels per second) is a press released where it was held.
    static let swipeSpeed = 100.0

    /// Widgets GTK gives long-press, drag or swipe gestures of their own (scrolling, selecting
    /// text, resizing, sliding, moving windows, rubber-band selection): those are not the app's.
    private static let motionMachineryTypes: [GType] = machineryTypes + [
        gtk_range_get_type(), gtk_paned_get_type(), gtk_scrolled_window_get_type(), gtk_text_view_get_type(),
        gtk_label_get_type(), gtk_switch_get_type(), gtk_notebook_get_type(), gtk_list_view_get_type(),
        gtk_grid_view_get_type(), gtk_column_view_get_type(), gtk_flow_box_get_type(), gtk_icon_view_get_type(),
        gtk_tree_view_get_type(), gtk_calendar_get_type(), gtk_popover_get_type(), gtk_spin_button_get_type(),
    ]
    /// GTK's private widgets with gestures of their own, by type name (they have no public type function).
    private static let motionMachineryNames: Set<String> = [
        "GtkColorPlane", "GtkColorSwatch", "GtkPlacesSidebar", "GtkListItemWidget", "GtkColumnViewTitle",
        "GtkListBase", "GtkGizmo", "GtkSidebarRow",
    ]

    static func ownsMotionGestures(_ widget: GObjectPointer) -> Bool {
        motionMachineryTypes.contains { cgtk_is_a(widget, $0) != 0 } || motionMachineryNames.contains(GObjectValue.typeName(of: widget))
            || GtkWebViews.isWebView(widget)
    }

    /// A button inside a control that reports its own signal: a spin button's `+` and `-`, a
    /// drop-down's toggle.
    static func isPartOfControl(_ widget: GObjectPointer) -> Bool {
        guard let parent = gtk_widget_get_parent(widget.assumingMemoryBound(to: GtkWidget.self)) else { return false }
        return cgtk_is_spin_button(parent) != 0 || cgtk_is_drop_down(parent) != 0
    }

    /// The application's toplevel windows.
    static func toplevels() -> [GObjectPointer] {
        guard let list = gtk_window_get_toplevels() else { return [] }
        var out: [GObjectPointer] = []
        let n = g_list_model_get_n_items(list)
        for i in 0..<n {
            guard let w = g_list_model_get_item(list, i) else { continue }
            out.append(w)
            g_object_unref(w)
        }
        return out
    }
}

/// A circle-mode change waiting for the GTK thread; the system by its address (it lives for the
/// rest of the process once started), so nothing but plain values crosses threads.
private final class CircleModeRequest {
    let system: UInt
    let on: Bool

    init(system: UInt, on: Bool) {
        self.system = system
        self.on = on
    }
}
