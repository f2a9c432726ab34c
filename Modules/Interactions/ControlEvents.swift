/// The kinds of control event an action can be registered for.
public struct ControlEvents: OptionSet, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let touchDown = ControlEvents(rawValue: 1 << 0)
    public static let touchUpInside = ControlEvents(rawValue: 1 << 6)
    public static let touchUpOutside = ControlEvents(rawValue: 1 << 7)
    public static let valueChanged = ControlEvents(rawValue: 1 << 12)
    public static let primaryActionTriggered = ControlEvents(rawValue: 1 << 13)
    public static let editingChanged = ControlEvents(rawValue: 1 << 17)
    public static let allEvents = ControlEvents(rawValue: 0xFFFF_FFFF)

    static let named: [(ControlEvents, String)] = [
        (.touchDown, "touchDown"), (.touchUpInside, "touchUpInside"), (.touchUpOutside, "touchUpOutside"),
        (.valueChanged, "valueChanged"), (.primaryActionTriggered, "primaryActionTriggered"),
        (.editingChanged, "editingChanged"),
    ]

    /// The event names joined with `|`, as the `controlEvents` prop carries them: `touchUpInside`.
    public var description: String {
        if self == .allEvents { return "allEvents" }
        let names = ControlEvents.named.filter { contains($0.0) }.map(\.1)
        return names.isEmpty ? "none" : names.joined(separator: "|")
    }
}
