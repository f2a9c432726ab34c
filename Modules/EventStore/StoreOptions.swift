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

    public init(access: Access = .create, durability: Durability = .full) {
        self.access = access
        self.durability = durability
    }
}
