public import EventModel

/// One page as the user saw it (docs/agent.md "Snapshots"): a PNG of its window and the view tree
/// of that moment, every node's `frame` in the PNG's pixels, with `path`, `viewId` and `props`.
///
/// Agents make these only in circle mode (or `run --snapshots`) and hand them to a sender that
/// ships them as `SNAPSHOT` frames; the GTK agent renders real windows, the simulated shop draws
/// its frames.
public struct PageSnapshot: Sendable, Hashable {
    /// The page name: the root element of the tree's paths.
    public var page: String
    /// Milliseconds since the epoch (this side's clock).
    public var capturedAt: Int64
    /// The PNG's size in pixels.
    public var width: Int
    public var height: Int
    /// The PNG file.
    public var png: [UInt8]
    /// The tree's root node (docs/viewpath.md §1 plus `path`, `viewId`, `frame`, `props`).
    public var tree: JSONObject

    public init(page: String, capturedAt: Int64, width: Int, height: Int, png: [UInt8], tree: JSONObject) {
        self.page = page
        self.capturedAt = capturedAt
        self.width = width
        self.height = height
        self.png = png
        self.tree = tree
    }
}
