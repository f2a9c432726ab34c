/// A scrolling view the user moved, come to rest: its offset, the way it moved since the last
/// rest, and the largest share of its content height seen in this page visit.
public struct ScrollRest: Sendable, Hashable {
    /// The larger movement since the last rest.
    public enum Direction: String, Sendable, Hashable {
        case up, down, left, right
    }

    /// The content's offset in the viewport, in whole pixels.
    public var offsetX: Int
    public var offsetY: Int
    public var direction: Direction
    /// `max((offset.y + viewport height) / content height)` in this page visit, 0 to 1.
    public var depth: Double

    public init(offsetX: Int, offsetY: Int, direction: Direction, depth: Double) {
        self.offsetX = offsetX
        self.offsetY = offsetY
        self.direction = direction
        self.depth = depth
    }

    /// The offset as `props.offset`: the JSON text `[x,y]`, since a wire prop is a scalar.
    public var offsetText: String { "[\(offsetX),\(offsetY)]" }
}

/// What kind of gesture the user made (`props.kind` of a `gesture` event).
public enum GestureKind: String, Sendable, Hashable, CaseIterable {
    case tap, longPress, swipe, pan, pinch
}
