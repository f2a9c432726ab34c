/// The "other information" a value control carries when it fires.
public struct ControlValue: Sendable, Hashable {
    /// Segmented controls: the chosen segment.
    public var selectedIndex: Int?
    /// Switches: on or off.
    public var isOn: Bool?
    /// Steppers and sliders: the current value.
    public var value: Double?

    public init(selectedIndex: Int? = nil, isOn: Bool? = nil, value: Double? = nil) {
        self.selectedIndex = selectedIndex
        self.isOn = isOn
        self.value = value
    }

    public var isEmpty: Bool { selectedIndex == nil && isOn == nil && value == nil }
}
