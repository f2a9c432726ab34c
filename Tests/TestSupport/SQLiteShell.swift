import Foundation

/// Runs `sql` against the database at `path` with the `sqlite3` shell, as a user would query
/// the collector's database (docs/schema.md), and returns its output lines. The rollups files
/// beside it (`PATH-rollups`, `PATH-rollups-pages`), when there are, are attached as `rollups`
/// and `rollup_pages` first, as docs/schema.md tells a user to, so the `rollup_*` tables go by
/// their plain names. Every batch acknowledged through the ingest log (`PATH-ingest`) is in
/// `events` first: it waits (up to 10 s) until `ingest_applied` reaches the acknowledged mark in
/// `PATH-ingest-lock` (docs/schema.md, "The ingest log"), as every read of the store waits for
/// the log.
public func sqlite(_ path: String, _ sql: String) throws -> [String] {
    let deadline = Date().addingTimeInterval(10)
    while let acknowledged = acknowledgedMark(path), Date() < deadline {
        let stored = Int64(try shell(path, "SELECT position FROM ingest_applied").first ?? "") ?? 0
        if stored >= acknowledged { break }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try shell(path, sql)
}

/// The last position the collector acknowledged: the mark line in `PATH-ingest-lock`
/// (`autotrack-ingest-mark 1 LOGID POSITION MS`, docs/schema.md); nil when there is none.
func acknowledgedMark(_ path: String) -> Int64? {
    guard let data = FileManager.default.contents(atPath: path + "-ingest-lock") else { return nil }
    let fields = String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count == 5, fields[0] == "autotrack-ingest-mark" else { return nil }
    return Int64(fields[3])
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
