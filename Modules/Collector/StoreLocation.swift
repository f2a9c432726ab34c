import EventStore
import PostgresStore
import SQLiteStore

/// Opens the store a `--db` value names; the one place that picks an implementation.
///
/// A file path is an SQLite database (the default, embedded store); a `postgresql://` or
/// `postgres://` URI is a PostgreSQL database that any number of collectors may share.
public func openStore(_ location: String, options: StoreOptions) throws(StoreError) -> any CollectorStore {
    guard !location.isEmpty else { throw StoreError(.notFound, "--db needs a file path or a postgresql:// URI") }
    if PostgresEventStore.accepts(location) { return try PostgresEventStore(uri: location, options: options) }
    return try SQLiteEventStore(path: location, options: options)
}

/// The file a `--db` value names, when it names a file (nil for a database server's URI).
func storeFile(_ location: String) -> String? {
    location.contains("://") ? nil : location
}
