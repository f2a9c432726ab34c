/// One streak of a scrolling view the user moved, from its first movement to its rest (sdk.md
/// "Scrolling", docs/gtk.md and docs/objc.md "Scrolling"): where it began, where it is, how far it
/// moved along each axis (the sum of its steps' lengths) and the sign of its last step along each.
/// A toolkit's hooks keep one per view while it moves, and make the `scroll` interaction's
/// `ScrollRest` from it at rest.
public struct ScrollStreak: Sendable {
    public private(set) var x: Double
    public private(set) var y: Double
    private let startX: Double
    private let startY: Double
    private var movedX = 0.0
    private var movedY = 0.0
    private var lastStepX = 0.0
    private var lastStepY = 0.0

    /// A streak starting at the offset `(x, y)`.
    public init(x: Double, y: Double) {
        (self.x, self.y) = (x, y)
        (startX, startY) = (x, y)
    }

    /// The view is at `(x, y)` now.
    public mutating func step(toX newX: Double, y newY: Double) {
        let stepX = newX - x
        let stepY = newY - y
        movedX += abs(stepX)
        movedY += abs(stepY)
        if stepX != 0 { lastStepX = stepX }
        if stepY != 0 { lastStepY = stepY }
        (x, y) = (newX, newY)
    }

    /// Whether the view moved at all in this streak.
    public var moved: Bool { movedX > 0 || movedY > 0 }

    /// The axis along which it moved more, and the sign of its net movement along it (of its last
    /// step, when it came back to where it began).
    public var direction: ScrollRest.Direction {
        if movedY >= movedX {
            let net = y - startY
            return (net != 0 ? net : lastStepY) > 0 ? .down : .up
        }
        let net = x - startX
        return (net != 0 ? net : lastStepX) > 0 ? .right : .left
    }

    /// The rest to report: the offset in whole pixels, the direction, `depth` rounded to four decimals.
    public func rest(depth: Double) -> ScrollRest {
        ScrollRest(
            offsetX: Int(x.rounded()), offsetY: Int(y.rounded()), direction: direction, depth: (depth * 10_000).rounded() / 10_000)
    }
}
