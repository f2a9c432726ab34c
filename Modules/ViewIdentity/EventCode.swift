/// A target-action event code, `Controller#Target#Action` (docs/viewpath.md §4).
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
            target: TypeName.name(targetTypeName), action: action)
    }

    /// The first controller met walking up the responder chain, which (as in UIKit) starts at the
    /// sender itself; name without alias. A window met first, or the end of the chain, gives that
    /// last node's name.
    public static func controllerName(from sender: any ViewNode) -> String {
        ViewPlacement(of: sender).codeController
    }

    /// Written into a string of the exact length (every tracked event is named so: it runs per tap).
    public var description: String {
        let length = controller.utf8.count + target.utf8.count + action.utf8.count + 2
        return String(unsafeUninitializedCapacity: length) { buffer in
            var w = ByteWriter(buffer)
            w.string(controller)
            w.byte(UInt8(ascii: "#"))
            w.string(target)
            w.byte(UInt8(ascii: "#"))
            w.string(action)
            return w.offset
        }
    }
}
