/// A rectangle in some view's coordinates (x to the right, y down), as impressions measure what
/// is visible.
public struct ViewRect: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Width times height; 0 for an empty (or negative) rectangle.
    public var area: Double { max(0, width) * max(0, height) }

    /// The part both rectangles cover (empty, of area 0, when they do not meet).
    public func intersection(_ other: ViewRect) -> ViewRect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        let right = min(x + width, other.x + other.width)
        let bottom = min(y + height, other.y + other.height)
        return ViewRect(x: left, y: top, width: max(0, right - left), height: max(0, bottom - top))
    }

    /// The share of this rectangle's area that lies inside `clip`, 0 to 1 (0 for an empty rectangle).
    public func fraction(visibleIn clip: ViewRect) -> Double {
        let whole = area
        return whole > 0 ? intersection(clip).area / whole : 0
    }

    /// Moved by (dx, dy).
    public func offsetBy(dx: Double, dy: Double) -> ViewRect {
        ViewRect(x: x + dx, y: y + dy, width: width, height: height)
    }

    public var description: String { "[\(x), \(y), \(width), \(height)]" }
}
