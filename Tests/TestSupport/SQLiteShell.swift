import Foundation

/// Runs `sql` against the database at `path` with the `sqlite3` shell, as a user would query
/// the collector's database (docs/schema.md), and returns its output lines. The rollups file
/// beside it (`PATH-rollups`), when there is one, is attached as `rollups` first, as
/// docs/schema.md tells a user to, so the `rollup_*` tables go by their plain names.
public func sqlite(_ path: String, _ sql: String) throws -> [String] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    let rollups = path + "-rollups"
    let attach = FileManager.default.fileExists(atPath: rollups)
        ? ["-cmd", "ATTACH '\(rollups.replacingOccurrences(of: "'", with: "''"))' AS rollups"] : []
    p.arguments = attach + [path, sql]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}
