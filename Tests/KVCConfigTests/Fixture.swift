import Foundation
import TestSupport
import Testing

/// Temporary files for loader and command tests.
enum Fixture {
    /// A fresh directory holding `files` (name → text); returns its path.
    static func directory(_ files: [String: String]) -> String {
        let dir = Fixtures.temporaryDirectory("kvcconfig")
        for (name, text) in files {
            let url = dir.appendingPathComponent(name)
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: url.path, contents: Data(text.utf8)))
        }
        return dir.path
    }
}
