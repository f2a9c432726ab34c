public import EventStore

/// A picture's facts without its PNG and tree (`GET /api/snapshots`): the stores' own listing
/// entry, spelled once (EventStore's `SnapshotSummary`).
public typealias StudioSnapshotSummary = SnapshotSummary

/// One picture whole: its facts, the PNG file and the view tree's JSON text.
public struct StudioSnapshot: Sendable, Hashable {
    public var summary: StudioSnapshotSummary
    public var png: [UInt8]
    /// The view tree of docs/viewpath.md §1 (`path`, `viewId`, `frame`, `props` on every node).
    public var tree: String

    public init(summary: StudioSnapshotSummary, png: [UInt8], tree: String) {
        self.summary = summary
        self.png = png
        self.tree = tree
    }
}
