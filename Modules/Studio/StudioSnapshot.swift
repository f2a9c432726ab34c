/// A picture's facts without its PNG and tree (`GET /api/snapshots`).
public struct StudioSnapshotSummary: Sendable, Hashable {
    public var id: Int64
    public var appKey: String
    public var appVersion: String
    /// The page name: the root element of the tree's paths.
    public var page: String
    /// When the app took it, ms since the epoch (the device's clock).
    public var capturedAt: Int64
    /// The PNG's size in pixels; node frames are in these coordinates.
    public var width: Int
    public var height: Int

    public init(id: Int64, appKey: String, appVersion: String, page: String, capturedAt: Int64, width: Int, height: Int) {
        self.id = id
        self.appKey = appKey
        self.appVersion = appVersion
        self.page = page
        self.capturedAt = capturedAt
        self.width = width
        self.height = height
    }
}

/// One picture whole: its facts, the PNG file and the view tree's JSON text.
public struct StudioSnapshot: Sendable, Hashable {
    public var summary: StudioSnapshotSummary
    public var png: [UInt8]
    /// The view tree of docs/studio.md §1 (`path`, `viewId`, `frame`, `props` on every node).
    public var tree: String

    public init(summary: StudioSnapshotSummary, png: [UInt8], tree: String) {
        self.summary = summary
        self.png = png
        self.tree = tree
    }
}
