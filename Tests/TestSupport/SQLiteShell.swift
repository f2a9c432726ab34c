import Foundation

/// Runs `sql` against the database at `path` with the `sqlite3` shell, as a user would query
/// the collector's database (docs/schema.md), and returns its output lines. The rollups files
/// beside it (`PATH-rollups`, `PATH-rollups-pages`), when there are, are attached as `rollups`
/// and `rollup_pages` first, as docs/schema.md tells a user to, so the `rollup_*` tables go by
/// their plain names. Every batch acknowledged through the ingest log (`PATH-ingest`) is in
/// `events` first: it waits (up to 10 s) until `ingest_applied` reaches the log's last record,
/// as every read of the store does (docs/schema.md, "The ingest log").
public func sqlite(_ path: String, _ sql: String) throws -> [String] {
    let deadline = Date().addingTimeInterval(10)
    while FileManager.default.fileExists(atPath: path + "-ingest"), Date() < deadline {
        let logged = Int(try shell(path + "-ingest", "SELECT COALESCE(MAX(position), 0) FROM log").first ?? "") ?? 0
        let stored = Int(try shell(path, "SELECT position FROM ingest_applied").first ?? "") ?? 0
        if stored >= logged { break }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try shell(path, sql)
}

/// Runs `sql` with the `sqlite3` shell against the database as it is on disk at this moment,
/// without waiting for anything (`sqlite` waits for the ingest log first): what a person
/// querying the file beside a running collector sees.
public func sqliteAsFound(_ path: String, _ sql: String) throws -> [String] {
    try shell(path, sql)
}

private func shell(_ path: String, _ sql: String) throws -> [String] {
    let attach = [("-rollups", "rollups"), ("-rollups-pages", "rollup_pages")].flatMap { suffix, schema in
        FileManager.default.fileExists(atPath: path + suffix)
            ? ["-cmd", "ATTACH '\((path + suffix).replacingOccurrences(of: "'", with: "''"))' AS \(schema)"] : []
    }
    let run = try runProgram("/usr/bin/sqlite3", attach + [path, sql], timeout: 60)
    // What the shell complains of goes where it always went: the test's own standard error.
    if !run.standardError.isEmpty { FileHandle.standardError.write(run.standardError) }
    return run.output.split(separator: "\n").map(String.init)
}
