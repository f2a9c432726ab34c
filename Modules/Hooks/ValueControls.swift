public import Interactions
/// An on/off switch; toggling it sends `valueChanged` with `isOn`.
open class UISwitch: UIControl {
    public var isOn: Bool

    public init(isOn: Bool = false) {
        self.isOn = isOn
        super.init()
    }

    open override var valueInfo: ControlValue { ControlValue(isOn: isOn) }

    /// What the user's toggle does: flips the switch and sends `valueChanged`.
    open func toggle() {
        isOn.toggle()
        sendActions(for: .valueChanged)
    }
}

/// A row of segments, one selected; choosing one sends `valueChanged` with `selectedIndex`.
open class UISegmentedControl: UIControl {
    public private(set) var items: [String]
    public var selectedSegmentIndex: Int

    public init(items: [String], selectedSegmentIndex: Int = 0) {
        self.items = items
        self.selectedSegmentIndex = selectedSegmentIndex
        super.init()
    }

    /// The selected segment's title.
    open override var title: String? {
        get { items.indices.contains(selectedSegmentIndex) ? items[selectedSegmentIndex] : nil }
        set {}
    }

    open override var valueInfo: ControlValue { ControlValue(selectedIndex: selectedSegmentIndex) }

    /// What the user's tap on segment `index` does; a tap on the selected segment sends nothing.
    open func select(segment index: Int) {
        guard items.indices.contains(index), index != selectedSegmentIndex else { return }
        selectedSegmentIndex = index
        sendActions(for: .valueChanged)
    }
}

/// A plus/minus stepper; each step sends `valueChanged` with `value`.
open class UIStepper: UIControl {
    public var value: Double
    public var minimumValue: Double
    public var maximumValue: Double
    public var stepValue: Double

    public init(value: Double = 0, minimumValue: Double = 0, maximumValue: Double = 100, stepValue: Double = 1) {
        self.value = value
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        self.stepValue = stepValue
        super.init()
    }

    open override var valueInfo: ControlValue { ControlValue(value: value) }

    /// What a tap on "+" does; at the maximum nothing changes and nothing is sent.
    open func increment() { step(by: stepValue) }
    /// What a tap on "−" does; at the minimum nothing changes and nothing is sent.
    open func decrement() { step(by: -stepValue) }

    private func step(by delta: Double) {
        let next = min(maximumValue, max(minimumValue, value + delta))
        guard next != value else { return }
        value = next
        sendActions(for: .valueChanged)
    }
}

/// A slider; sliding sends `valueChanged` with `value`.
open class UISlider: UIControl {
    public var value: Double
    public var minimumValue: Double
    public var maximumValue: Double

    public init(value: Double = 0, minimumValue: Double = 0, maximumValue: Double = 1) {
        self.value = value
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
        super.init()
    }

    open override var valueInfo: ControlValue { ControlValue(value: value) }

    /// What the user's drag to `newValue` does (clamped to the range).
    open func slide(to newValue: Double) {
        let v = min(maximumValue, max(minimumValue, newValue))
        guard v != value else { return }
        value = v
        sendActions(for: .valueChanged)
    }
}
