import CommandSupport
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

/// What every reading command does with its database: opens it read-only, answers `query` from
/// it, closes it. A failure is printed as `<command>: <error>` and gives nil.
func readStore<T>(
    _ database: String, command: String, io: any OutputStreams, _ query: (any CollectorStore) throws(StoreError) -> T
) -> T? {
    do throws(StoreError) {
        let store = try openStore(database, options: StoreOptions(access: .readOnly))
        defer { store.close() }
        return try query(store)
    } catch {
        io.printError("\(command): \(error)")
        return nil
    }
}
