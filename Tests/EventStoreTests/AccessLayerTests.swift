import Foundation
import Testing

/// The SQLite access layer (Modules/SQLiteStore/SQLite.swift: connections, statements,
/// transactions) is closed: nothing else extends its types, and it knows nothing of the store's
/// tables, files or families (those call it; it never calls them).
@Suite struct AccessLayerTests {
    static let module = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Modules/SQLiteStore")

    @Test func nothingOutsideTheAccessLayerExtendsItsTypes() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.module.path).filter { $0.hasSuffix(".swift") }
        #expect(files.contains("SQLite.swift"))
        var report: [String] = []
        for file in files where file != "SQLite.swift" {
            let text = try String(contentsOf: Self.module.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.range(of: #"^\s*extension\s+SQLite(Database|Statement)\b"#, options: .regularExpression) != nil {
                report.append("\(file):\(number + 1): \(line)")
            }
        }
        #expect(report.isEmpty, "the access layer is extended outside SQLite.swift:\n\(report.joined(separator: "\n"))")
    }

    @Test func theAccessLayerNamesNoTableOrFileOfTheStore() throws {
        let text = try String(contentsOf: Self.module.appendingPathComponent("SQLite.swift"), encoding: .utf8)
        for word in ["rollup", "Rollup", "events", "ingest", "Ingest", "batches"] {
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
            #expect(!code.contains { $0.contains(word) }, "SQLite.swift's code names \(word)")
        }
    }
}
