import CGtk
import Collector
import EventStore
import Foundation
import TestSupport

/// Snapshots as the collector stored them, read back for the GTK tests.
extension TestCollector {
    /// The snapshot store behind the embedded collector.
    var snapshotStore: any SnapshotStore {
        get throws {
            guard let store = collector.store as? any SnapshotStore else {
                throw HarnessFailure("the embedded collector's store keeps no snapshots")
            }
            return store
        }
    }

    /// Waits for the newest snapshot of `page` captured after `after` (ms since the epoch).
    func snapshot(page: String, after: Int64 = 0, within seconds: Double = 30) throws -> Snapshot {
        let store = try snapshotStore
        let deadline = Date().addingTimeInterval(seconds)
        var seen: [String] = []
        while Date() < deadline {
            let all = try store.snapshots(appKey: nil, appVersion: nil)
            seen = all.map(\.page)
            if let s = all.first(where: { $0.page == page && $0.capturedAt > after }), let full = try store.snapshot(id: s.id) {
                return full
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("no snapshot of \(page) after \(after) within \(seconds) s; stored: \(seen)")
    }
}

extension TestCollector {
    /// Waits for the first stored event that `matches`.
    func event(within seconds: Double = 20, where matches: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let e = try events().first(where: matches) { return e }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("no such event within \(seconds) s; stored: \(try events().map { $0["type"] ?? "?" })")
    }
}

extension Snapshot {
    /// The tree, parsed.
    var widgetTree: WidgetTree {
        get throws {
            guard let o = try JSONSerialization.jsonObject(with: Data(tree.utf8)) as? [String: Any] else {
                throw HarnessFailure("the snapshot's tree is not a JSON object")
            }
            return WidgetTree(root: o)
        }
    }
}

/// A PNG decoded by GTK's own loader (independent of how the agent encoded it).
struct DecodedPicture {
    let width: Int
    let height: Int
    /// 4 bytes per pixel, in GDK's default memory format (B, G, R, A premultiplied, little endian).
    let pixels: [UInt8]

    init(png: [UInt8]) throws {
        // The IHDR chunk first, as every PNG has it: its size must be the decoder's.
        guard png.count > 24, png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            Array(png[12..<16]) == Array("IHDR".utf8)
        else { throw HarnessFailure("not a PNG file (\(png.prefix(16)))") }
        let bytes = png.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        guard let texture = gdk_texture_new_from_bytes(bytes, &error) else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown"
            g_clear_error(&error)
            throw HarnessFailure("GTK cannot decode the PNG: \(message)")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        let w = Int(gdk_texture_get_width(texture))
        let h = Int(gdk_texture_get_height(texture))
        width = w
        height = h
        func be32(_ at: Int) -> Int { Int(png[at]) << 24 | Int(png[at + 1]) << 16 | Int(png[at + 2]) << 8 | Int(png[at + 3]) }
        guard be32(16) == w, be32(20) == h else {
            throw HarnessFailure("IHDR says \(be32(16))x\(be32(20)), the decoder \(w)x\(h)")
        }
        var out = [UInt8](repeating: 0, count: w * h * 4)
        out.withUnsafeMutableBytes { gdk_texture_download(texture, $0.baseAddress?.assumingMemoryBound(to: guchar.self), gsize(w * 4)) }
        pixels = out
    }

    /// The distinct colours inside `frame` (`[x, y, w, h]`), less a margin of `inset` pixels.
    func colours(in frame: [Int], inset: Int = 2) -> Set<[UInt8]> {
        var out: Set<[UInt8]> = []
        let x0 = max(0, frame[0] + inset), y0 = max(0, frame[1] + inset)
        let x1 = min(width, frame[0] + frame[2] - inset), y1 = min(height, frame[1] + frame[3] - inset)
        guard x0 < x1, y0 < y1 else { return out }
        for y in y0..<y1 {
            for x in x0..<x1 {
                let i = (y * width + x) * 4
                out.insert(Array(pixels[i..<(i + 4)]))
            }
        }
        return out
    }
}

extension [String: Any] {
    /// A node's `frame` as integers.
    var frame: [Int] {
        get throws {
            guard let f = self["frame"] as? [NSNumber], f.count == 4 else {
                throw HarnessFailure("node \(self["path"] ?? "?") has no frame")
            }
            return f.map(\.intValue)
        }
    }
}
