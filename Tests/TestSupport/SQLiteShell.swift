import Foundation

/// Runs `sql` against the database at `path` with the `sqlite3` shell, as a user would query
/// the collector's database (docs/schema.md), and returns its output lines.
public func sqlite(_ path: String, _ sql: String) throws -> [String] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    p.arguments = [path, sql]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
}
