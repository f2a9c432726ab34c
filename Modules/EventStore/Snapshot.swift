/// One page as a user saw it (docs/studio.md): a PNG of the window and the view tree of that
/// moment, sent by an agent while circle mode is on for its app key.
public struct Snapshot: Sendable, Hashable {
    /// The store's id; 0 before it is stored.
    public var id: Int64
    public var appKey: String
    public var appVersion: String
    /// The page name (the tree paths' root element).
    public var page: String
    /// When the agent took it, ms since the epoch, the client's clock.
    public var capturedAt: Int64
    /// When the collector received it, ms since the epoch.
    public var receivedAt: Int64
    /// The PNG's pixel size.
    public var width: Int
    public var height: Int
    /// The PNG file.
    public var png: [UInt8]
    /// The view tree, JSON text of its root node (frames in the PNG's pixels, with `props`).
    public var tree: String
    /// The sending agent's device id (docs/wire.md `SNAPSHOT` `device`), nil when it gave none.
    public var device: String?

    /// How many snapshots a store keeps per (appKey, appVersion, page): the newest and the
    /// history before it. Storing one more deletes the oldest of that page.
    public static let keptPerPage = 10
    /// The bytes (PNG and tree) a store keeps of one app's snapshots, and of all apps', unless
    /// `StoreOptions.snapshotBytes` says otherwise: storing
    /// one more deletes the oldest (by the order they arrived) until both hold again, the new one
    /// never. Page names are the agent's free text, so `keptPerPage` alone bounds nothing:
    /// 64 MiB holds a thousand pictures of 64 KiB, four of the largest frame (16 MiB).
    public static let keptBytesPerApp = 64 << 20
    public static let keptBytesInAll = 256 << 20

    public init(
        id: Int64 = 0, appKey: String, appVersion: String, page: String, capturedAt: Int64, receivedAt: Int64,
        width: Int, height: Int, png: [UInt8], tree: String, device: String? = nil
    ) {
        self.id = id
        self.appKey = appKey
        self.appVersion = appVersion
        self.page = page
        self.capturedAt = capturedAt
        self.receivedAt = receivedAt
        self.width = width
        self.height = height
        self.png = png
        self.tree = tree
        self.device = device
    }

    /// Its listing entry.
    public var summary: SnapshotSummary {
        SnapshotSummary(
            id: id, appKey: appKey, appVersion: appVersion, page: page, capturedAt: capturedAt, width: width,
            height: height, receivedAt: receivedAt, device: device)
    }
}

/// A snapshot without its picture and tree: what a listing shows.
public struct SnapshotSummary: Sendable, Hashable {
    public var id: Int64
    public var appKey: String
    public var appVersion: String
    public var page: String
    public var capturedAt: Int64
    public var width: Int
    public var height: Int
    /// When the collector received it (its clock), and the sender's device id (nil: none given).
    public var receivedAt: Int64
    public var device: String?

    public init(
        id: Int64, appKey: String, appVersion: String, page: String, capturedAt: Int64, width: Int, height: Int, receivedAt: Int64,
        device: String? = nil
    ) {
        self.id = id
        self.appKey = appKey
        self.appVersion = appVersion
        self.page = page
        self.capturedAt = capturedAt
        self.width = width
        self.height = height
        self.receivedAt = receivedAt
        self.device = device
    }
}
