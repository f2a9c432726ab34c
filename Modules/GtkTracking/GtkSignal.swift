import CGtk

/// A GTK signal the hooks follow, typed: its name, the types whose instances emit it, and what an
/// emission carries, read by name (`args.position`, `args.state`), never by position.
///
/// The signals are declared here beside their arguments (`GtkSignal.clicked`,
/// `GtkSignal.listActivate`…), as `HookPoint`s are beside the classes that call them; a hook on
/// one is `GtkSignalHook`'s typed `install`, which looks the signal up on each emitting type.
struct GtkSignal<Arguments: GtkSignalArguments>: CustomStringConvertible {
    /// The signal's name (`clicked`, `state-set`).
    let name: String
    /// The types whose instances emit it, each hooked (GTK declares some signals on several
    /// unrelated classes: `toggled` on both toggle and check buttons).
    let emitters: [GType]

    init(_ name: String, on emitters: [GType]) {
        self.name = name
        self.emitters = emitters
    }

    var description: String {
        emitters.map { String(cString: g_type_name($0)) }.joined(separator: "/") + "::" + name
    }
}

/// What one emission of a signal carries, by name: decoded from the emission's parameters (the
/// emitting instance first, then the signal's own); nil when they are not what the signal gives.
protocol GtkSignalArguments {
    init?(_ parameters: GtkSignalParameters)
}

/// The arguments of a signal that carries none but its emitting instance.
protocol GtkInstanceArguments: GtkSignalArguments {
    init(instance: GObjectPointer)
}

extension GtkInstanceArguments {
    init?(_ parameters: GtkSignalParameters) {
        guard let instance = parameters.instance else { return nil }
        self.init(instance: instance)
    }
}

/// One emission's parameters, as GLib passes them to an emission hook: the instance at 0, then
/// the signal's arguments. Reads past the end give nil.
struct GtkSignalParameters {
    let values: UnsafePointer<GValue>
    let count: Int

    /// The emitting instance.
    var instance: GObjectPointer? { pointer(0) }

    /// The instance or object pointer at `index`.
    func pointer(_ index: Int) -> GObjectPointer? { index < count ? cgtk_value_pointer(values + index) : nil }
    func bool(_ index: Int) -> Bool? { index < count ? g_value_get_boolean(values + index) != 0 : nil }
    func uint(_ index: Int) -> UInt32? { index < count ? g_value_get_uint(values + index) : nil }
    func int(_ index: Int) -> Int32? { index < count ? g_value_get_int(values + index) : nil }
    func double(_ index: Int) -> Double? { index < count ? g_value_get_double(values + index) : nil }
}

// MARK: The signals hooked (docs/gtk.md "Event codes and kinds")

extension GtkSignal where Arguments == SurfaceEvent {
    /// `GdkSurface::event`: every input event GDK delivers.
    static var surfaceEvent: Self { Self("event", on: [gdk_surface_get_type()]) }
}

/// `GdkSurface::event(event)`.
struct SurfaceEvent: GtkSignalArguments {
    let event: OpaquePointer

    init?(_ p: GtkSignalParameters) {
        guard let event = p.pointer(1) else { return nil }
        self.event = OpaquePointer(event)
    }
}

extension GtkSignal where Arguments == ButtonClicked {
    /// `GtkButton::clicked`.
    static var clicked: Self { Self("clicked", on: [gtk_button_get_type()]) }
}

/// `GtkButton::clicked()`.
struct ButtonClicked: GtkInstanceArguments {
    let button: GObjectPointer

    init(instance: GObjectPointer) { button = instance }
}

extension GtkSignal where Arguments == ButtonToggled {
    /// `GtkToggleButton::toggled`, `GtkCheckButton::toggled`.
    static var toggled: Self { Self("toggled", on: [gtk_toggle_button_get_type(), gtk_check_button_get_type()]) }
}

/// `toggled()` of a toggle or check button.
struct ButtonToggled: GtkInstanceArguments {
    let button: GObjectPointer

    init(instance: GObjectPointer) { button = instance }

    /// The button's state after the toggle (its `active` property), read when asked.
    var active: Bool? { GObjectProperty.active.read(button) }
}

extension GtkSignal where Arguments == SwitchStateSet {
    /// `GtkSwitch::state-set`.
    static var switchStateSet: Self { Self("state-set", on: [gtk_switch_get_type()]) }
}

/// `GtkSwitch::state-set(state)`: the switch takes its new state.
struct SwitchStateSet: GtkSignalArguments {
    let `switch`: GObjectPointer
    let state: Bool

    init?(_ p: GtkSignalParameters) {
        guard let widget = p.instance, let state = p.bool(1) else { return nil }
        self.switch = widget
        self.state = state
    }
}

extension GtkSignal where Arguments == SwitchActivated {
    /// `GtkSwitch::activate` (the keyboard's or an accessibility tool's flip).
    static var switchActivate: Self { Self("activate", on: [gtk_switch_get_type()]) }
}

/// `GtkSwitch::activate()`.
struct SwitchActivated: GtkInstanceArguments {
    let `switch`: GObjectPointer

    init(instance: GObjectPointer) { self.switch = instance }
}

extension GtkSignal where Arguments == ValueChanged {
    /// `GtkRange::value-changed`, `GtkSpinButton::value-changed`.
    static var valueChanged: Self { Self("value-changed", on: [gtk_range_get_type(), gtk_spin_button_get_type()]) }
}

/// `value-changed()` of a range or spin button.
struct ValueChanged: GtkInstanceArguments {
    let control: GObjectPointer

    init(instance: GObjectPointer) { control = instance }

    /// The new value (the `value` property; a range's adjustment where it has none), read when asked.
    var value: Double? {
        GObjectProperty.value.read(control)
            ?? (cgtk_is_range(control) != 0 ? gtk_range_get_value(control.assumingMemoryBound(to: GtkRange.self)) : nil)
    }
}

extension GtkSignal where Arguments == RowActivated {
    /// `GtkListBox::row-activated`.
    static var rowActivated: Self { Self("row-activated", on: [gtk_list_box_get_type()]) }
}

/// `GtkListBox::row-activated(row)`.
struct RowActivated: GtkSignalArguments {
    let list: GObjectPointer
    let row: GObjectPointer

    init?(_ p: GtkSignalParameters) {
        guard let list = p.instance, let row = p.pointer(1) else { return nil }
        self.list = list
        self.row = row
    }
}

extension GtkSignal where Arguments == ListActivated {
    /// `activate` of a list, grid or column view.
    static var listActivate: Self {
        Self("activate", on: [gtk_list_view_get_type(), gtk_grid_view_get_type(), gtk_column_view_get_type()])
    }
}

/// `activate(position)` of a list, grid or column view: the item at `position` was activated.
struct ListActivated: GtkSignalArguments {
    let list: GObjectPointer
    let position: Int

    init?(_ p: GtkSignalParameters) {
        guard let list = p.instance, let position = p.uint(1) else { return nil }
        self.list = list
        self.position = Int(position)
    }
}

extension GtkSignal where Arguments == ClickReleased {
    /// `GtkGestureClick::released`.
    static var clickReleased: Self { Self("released", on: [gtk_gesture_click_get_type()]) }
}

/// `GtkGestureClick::released(n_press, x, y)`, with the widget the gesture is attached to.
struct ClickReleased: GtkSignalArguments {
    let gesture: GObjectPointer
    let widget: GObjectPointer
    /// How many presses in a row this release ends (2 for a double click).
    let pressCount: Int

    init?(_ p: GtkSignalParameters) {
        guard let gesture = p.instance, let widget = gtk_event_controller_get_widget(OpaquePointer(gesture)),
            let pressCount = p.int(1)
        else { return nil }
        self.gesture = gesture
        self.widget = UnsafeMutableRawPointer(widget)
        self.pressCount = Int(pressCount)
    }
}

/// A gesture controller's signal with the widget the gesture is attached to.
struct GestureSignal: GtkSignalArguments {
    let gesture: GObjectPointer
    let widget: GObjectPointer
    /// The signal's first two numbers: a swipe's velocity, a drag's offset (0 where it has none).
    let first: Double
    let second: Double

    init?(_ p: GtkSignalParameters) {
        guard let gesture = p.instance, let widget = gtk_event_controller_get_widget(OpaquePointer(gesture)) else { return nil }
        self.gesture = gesture
        self.widget = UnsafeMutableRawPointer(widget)
        first = p.double(1) ?? 0
        second = p.double(2) ?? 0
    }
}

extension GtkSignal where Arguments == GestureSignal {
    /// `GtkGestureLongPress::pressed(x, y)`: held long enough.
    static var longPressed: Self { Self("pressed", on: [gtk_gesture_long_press_get_type()]) }
    /// `GtkGestureSwipe::swipe(velocity_x, velocity_y)`: the drag ended with this velocity.
    static var swiped: Self { Self("swipe", on: [gtk_gesture_swipe_get_type()]) }
    /// `GtkGestureDrag::drag-end(offset_x, offset_y)` (pan gestures included).
    static var dragEnded: Self { Self("drag-end", on: [gtk_gesture_drag_get_type()]) }
}

extension GtkSignal where Arguments == WidgetMapping {
    /// `GtkWidget::map`: the widget is about to be shown.
    static var map: Self { Self("map", on: [gtk_widget_get_type()]) }
    /// `GtkWidget::unmap`: the widget is hidden.
    static var unmap: Self { Self("unmap", on: [gtk_widget_get_type()]) }
}

/// `GtkWidget::map()`, `GtkWidget::unmap()`.
struct WidgetMapping: GtkInstanceArguments {
    let widget: GObjectPointer

    init(instance: GObjectPointer) { widget = instance }
}

extension GtkSignal where Arguments == ListItemBound {
    /// `GtkSignalListItemFactory::bind`.
    static var listItemBind: Self { Self("bind", on: [gtk_signal_list_item_factory_get_type()]) }
}

/// `GtkSignalListItemFactory::bind(object)`, when the object is a `GtkListItem`.
struct ListItemBound: GtkSignalArguments {
    let item: GObjectPointer

    init?(_ p: GtkSignalParameters) {
        guard let item = p.pointer(1), cgtk_is_list_item(item) != 0 else { return nil }
        self.item = item
    }
}

extension GtkSignal where Arguments == AdjustmentValueChanged {
    /// `GtkAdjustment::value-changed` (a scrolled window's offset, among others).
    static var adjustmentValueChanged: Self { Self("value-changed", on: [gtk_adjustment_get_type()]) }
}

/// `GtkAdjustment::value-changed()`.
struct AdjustmentValueChanged: GtkInstanceArguments {
    let adjustment: GObjectPointer

    init(instance: GObjectPointer) { adjustment = instance }
}
