public import EventModel

/// A `SNAPSHOT` request body (docs/wire.md §2): one page as the user saw it, a PNG of the
/// window and its view tree, sent while circle mode is on. The app key and version are the
/// session's (its `HELLO`).
///
/// `SNAPSHOT {"page":P,"capturedAt":T,"width":W,"height":H,"png":B64,"tree":NODE[,"device":D]}`
public struct SnapshotUpload: Sendable, Hashable {
    /// The page name: the root element of the tree's paths.
    public var page: String
    /// Milliseconds since the epoch, the client's clock.
    public var capturedAt: Int64
    /// The PNG's pixel size.
    public var width: Int
    public var height: Int
    /// The PNG file itself (on the wire: standard base64 with padding).
    public var png: [UInt8]
    /// The view tree's root node (docs/viewpath.md §1, with `props`), frames in PNG pixels.
    public var tree: JSONObject
    /// The sending agent's device id, as its events' `device` (at most 128 bytes); nil: not said.
    public var device: String?

    /// The 8 bytes every PNG file starts with.
    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// The longest page name accepted, in UTF-8 bytes.
    public static let maxPageBytes = 1024
    /// The largest width or height accepted, in pixels.
    public static let maxDimension = 65535
    /// The longest device id accepted, in UTF-8 bytes (an event's `device` limit).
    public static let maxDeviceBytes = 128

    public init(page: String, capturedAt: Int64, width: Int, height: Int, png: [UInt8], tree: JSONObject, device: String? = nil) {
        self.page = page
        self.capturedAt = capturedAt
        self.width = width
        self.height = height
        self.png = png
        self.tree = tree
        self.device = device
    }

    /// Reads a `SNAPSHOT` body; the error is `bad-request` naming the member at fault and what it must be.
    public init(body: JSONObject) throws(ATLPError) {
        func bad(_ reason: String) -> ATLPError { ATLPError(.badRequest, "SNAPSHOT \(reason)") }
        func member(_ key: String, _ what: String) throws(ATLPError) -> JSONValue {
            guard let v = body[key] else { throw bad("needs \"\(key)\": \(what)") }
            return v
        }
        guard case .string(let page) = try member("page", "the page name, a string"), !page.isEmpty,
            page.utf8.count <= Self.maxPageBytes
        else { throw bad("\"page\" must be a string of 1 to \(Self.maxPageBytes) bytes (the page name)") }
        guard case .int(let capturedAt) = try member("capturedAt", "an integer, ms since the epoch") else {
            throw bad("\"capturedAt\" must be an integer (ms since the epoch)")
        }
        // The events' valid times (EventTime): prune and the studio compute with it.
        guard EventTime.range.contains(capturedAt) else {
            throw bad(
                "\"capturedAt\" must be from \(EventTime.earliest) (1970-01-01T00:00:00Z) to \(EventTime.latest) "
                    + "(9999-12-31T23:59:59.999Z) ms since the epoch")
        }
        func dimension(_ key: String) throws(ATLPError) -> Int {
            guard case .int(let n) = try member(key, "the PNG's \(key) in pixels"), n >= 1, n <= Self.maxDimension else {
                throw bad("\"\(key)\" must be an integer from 1 to \(Self.maxDimension) (the PNG's \(key) in pixels)")
            }
            return Int(n)
        }
        let width = try dimension("width")
        let height = try dimension("height")
        guard case .string(let text) = try member("png", "the PNG file in standard base64") else {
            throw bad("\"png\" must be a string: the PNG file in standard base64 (RFC 4648 §4, padded)")
        }
        guard let png = Base64.decode(text) else {
            throw bad("\"png\" is not standard base64 (RFC 4648 §4: A-Z a-z 0-9 + /, padded with = to a multiple of 4)")
        }
        guard png.starts(with: Self.pngSignature) else {
            throw bad("\"png\" does not decode to a PNG file (it lacks the 8-byte PNG signature)")
        }
        guard case .object(let tree) = try member("tree", "the view tree's root node, an object") else {
            throw bad("\"tree\" must be an object: the view tree's root node")
        }
        var device: String?
        switch body["device"] {
        case nil, .null?: device = nil
        case .string(let d)? where d.utf8.count <= Self.maxDeviceBytes: device = d.isEmpty ? nil : d
        default: throw bad("\"device\" must be a string of at most \(Self.maxDeviceBytes) bytes (the agent's device id, as its events' device)")
        }
        self.init(page: page, capturedAt: capturedAt, width: width, height: height, png: png, tree: tree, device: device)
    }

    /// Reads a `SNAPSHOT` frame; nil when it is not one or its body is not valid.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "SNAPSHOT", let body = frame.body, let upload = try? SnapshotUpload(body: body) else {
            return nil
        }
        self = upload
    }

    /// The frame a client sends.
    public var frame: ATLPFrame {
        var members: [(String, JSONValue)] = [
            ("page", .string(page)), ("capturedAt", .int(capturedAt)), ("width", .int(Int64(width))),
            ("height", .int(Int64(height))), ("png", .string(Base64.encode(png))), ("tree", .object(tree)),
        ]
        if let device { members.append(("device", .string(device))) }
        return ATLPFrame(verb: "SNAPSHOT", body: JSONObject(members))
    }
}
