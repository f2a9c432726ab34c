import CommandSupport
import Foundation
public import EventStore
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

/// Refuses `output` (a command's `--out`) when it is the database `location` names or one of
/// SQLite's files beside it (`-wal`, `-shm`, `-journal`): writing there would destroy committed
/// events. A usage error, so nothing has been read or written yet.
func refuseOutput(_ output: String, over location: String) throws(UsageError) {
    guard let file = storeFile(location) else { return }
    if sameFile(output, file) {
        throw UsageError("--out \(output) is the database itself; the report would overwrite it; give another --out file")
    }
    for suffix in SQLiteEventStore.companionSuffixes where sameFile(output, file + suffix) {
        throw UsageError(
            "--out \(output) is the database's \(suffix) file, where SQLite keeps committed events and its locks; "
                + "the report would overwrite it; give another --out file")
    }
}

/// True when `a` and `b` name one file: the same path once symbolic links are resolved, or,
/// when both exist, the same device and inode (a hard link).
func sameFile(_ a: String, _ b: String) -> Bool {
    func resolved(_ p: String) -> String { URL(fileURLWithPath: p).resolvingSymlinksInPath().standardizedFileURL.path }
    if resolved(a) == resolved(b) { return true }
    let fm = FileManager.default
    guard let x = try? fm.attributesOfItem(atPath: a), let y = try? fm.attributesOfItem(atPath: b) else { return false }
    guard let ix = x[.systemFileNumber] as? Int, let iy = y[.systemFileNumber] as? Int,
        let dx = x[.systemNumber] as? Int, let dy = y[.systemNumber] as? Int
    else { return false }
    return ix == iy && dx == dy
}
