/// An RGB raster with 8 bits per channel, drawn on with rectangles and small text, and saved as a
/// PNG (docs/agent.md "Snapshots": the simulated shop draws its pages' frames with it).
public struct RGBImage: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// Row after row, three bytes (red, green, blue) per pixel.
    public private(set) var pixels: [UInt8]

    /// A `width`×`height` image filled with `background` (both at least 1).
    public init(width: Int, height: Int, background: RGBColor = .white) {
        precondition(width > 0 && height > 0, "an image needs at least one pixel")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        fill(x: 0, y: 0, width: width, height: height, background)
    }

    /// The colour at (`x`, `y`).
    public func pixel(x: Int, y: Int) -> RGBColor {
        let i = (y * width + x) * 3
        return RGBColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2])
    }

    /// Fills the rectangle, clipped to the image.
    public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ color: RGBColor) {
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            var i = (row * width + x0) * 3
            for _ in x0..<x1 {
                pixels[i] = color.red
                pixels[i + 1] = color.green
                pixels[i + 2] = color.blue
                i += 3
            }
        }
    }

    /// Draws the rectangle's outline, one pixel wide, inside its bounds.
    public mutating func stroke(x: Int, y: Int, width w: Int, height h: Int, _ color: RGBColor) {
        guard w > 0, h > 0 else { return }
        fill(x: x, y: y, width: w, height: 1, color)
        fill(x: x, y: y + h - 1, width: w, height: 1, color)
        fill(x: x, y: y, width: 1, height: h, color)
        fill(x: x + w - 1, y: y, width: 1, height: h, color)
    }

    /// Writes `text` from (`x`, `y`) (its top left) in the 5×7 font, each font pixel `scale`
    /// pixels wide; letters are drawn as capitals, characters the font lacks as a box. Stops at
    /// `maxWidth` pixels when given.
    public mutating func draw(text: String, x: Int, y: Int, scale: Int = 1, maxWidth: Int? = nil, _ color: RGBColor) {
        var cx = x
        let advance = (Glyphs.width + 1) * scale
        let limit = maxWidth.map { x + $0 } ?? Int.max
        for c in text.unicodeScalars {
            guard cx + Glyphs.width * scale <= limit else { return }
            let rows = Glyphs.rows(of: c)
            for (r, bits) in rows.enumerated() {
                for col in 0..<Glyphs.width where bits & (1 << (Glyphs.width - 1 - col)) != 0 {
                    fill(x: cx + col * scale, y: y + r * scale, width: scale, height: scale, color)
                }
            }
            cx += advance
        }
    }

    /// The image as a PNG file (8-bit RGB, no interlace), compressed (docs/agent.md "Snapshots").
    public var png: [UInt8] { PNGEncoder.encode(self) }
}

/// A colour of an `RGBImage`.
public struct RGBColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    public static let white = RGBColor(red: 255, green: 255, blue: 255)
    public static let black = RGBColor(red: 0, green: 0, blue: 0)
}
