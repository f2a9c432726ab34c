import Foundation
import PNGImage
import TestSupport
import Testing

/// PNG files from `RGBImage`, decoded by an independent reader: Python's zlib (which checks the
/// Adler-32) and a chunk walk that checks every CRC-32.
struct PNGImageTests {
    /// Decodes `png` with python3; the width, height and RGB bytes it read.
    static func decode(_ png: [UInt8]) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("png-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("image.png")
        let raw = dir.appendingPathComponent("image.raw")
        try Data(png).write(to: file)
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'signature'
            pos, idat, header = 8, b'', None
            while pos < len(data):
                n, kind = struct.unpack('>I4s', data[pos:pos + 8])
                body = data[pos + 8:pos + 8 + n]
                crc, = struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])
                assert zlib.crc32(kind + body) == crc, 'crc of ' + kind.decode()
                if kind == b'IHDR': header = struct.unpack('>IIBBBBB', body)
                if kind == b'IDAT': idat += body
                pos += 12 + n
            width, height, depth, colour = header[:4]
            assert (depth, colour) == (8, 2), 'RGB 8'
            rows = zlib.decompress(idat)
            stride = width * 3 + 1
            assert len(rows) == stride * height, 'size'
            out = bytearray()
            for y in range(height):
                assert rows[y * stride] == 0, 'filter'
                out += rows[y * stride + 1:(y + 1) * stride]
            open(sys.argv[2], 'wb').write(out)
            print(width, height)
            """
        let run = try runProgram("/usr/bin/env", ["python3", "-c", script, file.path, raw.path], timeout: 60)
        let text = run.output
        guard run.status == 0 else { throw DecodeFailure(message: "python3 could not read the PNG: \(run.errors)") }
        let size = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard size.count == 2 else { throw DecodeFailure(message: "python3 printed \(text)") }
        return (size[0], size[1], Array(try Data(contentsOf: raw)))
    }

    struct DecodeFailure: Error { var message: String }

    @Test func aDrawingDecodesToTheSamePixels() throws {
        var image = RGBImage(width: 123, height: 77, background: RGBColor(red: 240, green: 240, blue: 240))
        image.fill(x: 10, y: 10, width: 50, height: 20, RGBColor(red: 30, green: 90, blue: 200))
        image.stroke(x: 5, y: 40, width: 100, height: 30, .black)
        image.draw(text: "Add to cart 12$", x: 8, y: 50, scale: 1, .black)
        image.fill(x: 100, y: 60, width: 100, height: 100, RGBColor(red: 200, green: 0, blue: 0))  // clipped
        let decoded = try Self.decode(image.png)
        #expect(decoded.width == 123)
        #expect(decoded.height == 77)
        #expect(decoded.pixels == image.pixels)
        #expect(image.pixel(x: 20, y: 20) == RGBColor(red: 30, green: 90, blue: 200))
        #expect(image.pixel(x: 5, y: 45) == .black)
        #expect(image.pixel(x: 122, y: 76) == RGBColor(red: 200, green: 0, blue: 0))
    }

    @Test func noisyPixelsAndLongRunsDecodeToo() throws {
        // Every length and distance branch: noise (literals), runs of every length up to a whole row.
        var image = RGBImage(width: 700, height: 40)
        var seed: UInt32 = 12345
        for y in 0..<40 {
            for x in stride(from: 0, to: 700, by: 1 + y % 7) {
                seed = seed &* 1_103_515_245 &+ 12345
                let c = UInt8(truncatingIfNeeded: seed >> 16)
                image.fill(x: x, y: y, width: 1 + (y % 5), height: 1, RGBColor(red: c, green: c &+ 1, blue: c / 2))
            }
        }
        let png = image.png
        let decoded = try Self.decode(png)
        #expect(decoded.width == 700 && decoded.height == 40)
        #expect(decoded.pixels == image.pixels)
    }

    @Test func aFlatPictureCompresses() throws {
        var image = RGBImage(width: 360, height: 640)
        image.fill(x: 8, y: 8, width: 344, height: 40, RGBColor(red: 220, green: 220, blue: 255))
        let png = image.png
        #expect(png.count < 360 * 640 * 3 / 20, "\(png.count) bytes")
        #expect(try Self.decode(png).pixels == image.pixels)
    }
}
