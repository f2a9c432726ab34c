/// A target-action event code, `Controller#Target#Action` (viewpath.md §4).
public struct EventCode: Sendable, Hashable, CustomStringConvertible {
    public var controller: String
    public var target: String
    public var action: String

    public init(controller: String, target: String, action: String) {
        self.controller = controller
        self.target = target
        self.action = action
    }

    /// The code for `action` sent by `sender` to a target whose runtime type name is `targetTypeName`.
    public init(sender: any ViewNode, targetTypeName: String, action: String) {
        self.init(
            controller: EventCode.controllerName(from: sender),
            target: TypeName.stripModulePrefix(targetTypeName), action: action)
    }

    /// The first controller among the sender's ancestors (name without alias). A window met
    /// first, or the end of the chain, gives that last node's name; a sender with no parent
    /// gives its own name.
    public static func controllerName(from sender: any ViewNode) -> String {
        var node: any ViewNode = sender
        while let parent = node.parentNode {
            node = parent
            if node.role == .controller || node.role == .window { break }
        }
        return TypeName.stripModulePrefix(node.typeName)
    }

    public var description: String { "\(controller)#\(target)#\(action)" }
}
