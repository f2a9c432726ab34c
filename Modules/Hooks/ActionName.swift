/// An action's selector-style name as registered, such as `onFavBtnPressed:` (docs/viewpath.md §4).
///
/// Written as a string literal where an action is registered:
/// `button.addTarget(self, action: "onFavBtnPressed:", for: .touchUpInside) { home, sender in home.onFavBtnPressed(sender) }`.
/// The name identifies the action for event codes and configurations; the closure binds it to
/// Swift code, so no runtime lookup by name is needed.
public struct ActionName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }
    public init(stringLiteral value: String) { self.name = value }

    public var description: String { name }
}
