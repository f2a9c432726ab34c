/// How a store is opened.
public struct StoreOptions: Sendable, Hashable {
    /// What opening may do to the database.
    public enum Access: Sendable, Hashable {
        /// Create the database when absent and migrate it to the current schema (the server).
        case create
        /// The database must exist; migrate it when older (`rules list`, tools that write).
        case existing
        /// The database must exist and be Autotrack's at the current schema; nothing is written
        /// (`report`): a foreign or older database is refused, never changed.
        case readOnly
    }

    /// How hard a commit waits for the disk.
    public enum Durability: String, Sendable, Hashable, CaseIterable {
        /// A commit survives power loss before `append` returns (SQLite: its write-ahead log
        /// synced, by one `fdatasync` shared by the groups committed before it; PostgreSQL
        /// `synchronous_commit = on`). The default, because an `ACK` tells the client to forget
        /// the events, so a commit must not be undone afterwards.
        case full
        /// Survives a crash of the collector, not of the machine (SQLite `synchronous=NORMAL`).
        case normal
    }

    public var access: Access
    public var durability: Durability
    /// Whether a store whose ingest log ends short of what it acknowledged (or cannot be read)
    /// may open: it stores what the log still holds, keeps the damaged files aside and says what
    /// was lost. Without it such a store refuses to open, saying the same (`StoreError.Code.damaged`).
    public var acceptIngestLoss: Bool
    /// The bytes of snapshots kept per app and in all (`SnapshotStore`'s guarantee).
    public var snapshotBytes: SnapshotBytes

    /// The bytes of snapshots a store keeps: storing one more deletes the oldest until both hold.
    public struct SnapshotBytes: Sendable, Hashable {
        public var perApp: Int
        public var inAll: Int

        public init(perApp: Int = Snapshot.keptBytesPerApp, inAll: Int = Snapshot.keptBytesInAll) {
            self.perApp = perApp
            self.inAll = inAll
        }
    }

    public init(
        access: Access = .create, durability: Durability = .full, acceptIngestLoss: Bool = false, snapshotBytes: SnapshotBytes = SnapshotBytes()
    ) {
        self.access = access
        self.durability = durability
        self.acceptIngestLoss = acceptIngestLoss
        self.snapshotBytes = snapshotBytes
    }
}
