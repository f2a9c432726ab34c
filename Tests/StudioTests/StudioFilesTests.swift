import Foundation
import HTTPServer
import Testing
import TestSupport

/// The studio's page files (Modules/Studio/Resources) are real files: each script passes Node's
/// syntax check alone and as the one `/studio.js` the binary serves, and what the binary serves
/// is what the files hold (embedded at build time).
@Suite struct StudioFilesTests {
    static let resources = Fixtures.repositoryRoot.appendingPathComponent("Modules/Studio/Resources")
    let f = StudioFixture()

    static func scripts() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: resources, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "js" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// `node --check FILE`: its exit status and what it said.
    static func nodeCheck(_ file: URL) throws -> (status: Int32, message: String) {
        let run = try runProgram("/usr/bin/env", ["node", "--check", file.path], timeout: 60)
        return (run.status, run.output + run.errors)
    }

    @Test(.timeLimit(.minutes(5))) func eachScriptAndTheServedOnePassNodesSyntaxCheck() throws {
        let files = try Self.scripts()
        #expect(files.count >= 5)
        for file in files {
            let check = try Self.nodeCheck(file)
            #expect(check.status == 0, "\(file.lastPathComponent): \(check.message)")
        }
        // Joined, the files share one scope: a name declared twice fails here.
        let served = f.send(.get, "/studio.js", token: nil).text
        let joined = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString).js")
        try Data(served.utf8).write(to: joined)
        defer { try? FileManager.default.removeItem(at: joined) }
        let check = try Self.nodeCheck(joined)
        #expect(check.status == 0, "/studio.js: \(check.message)")
    }

    @Test func theBinaryServesWhatTheFilesHold() throws {
        let served = f.send(.get, "/studio.js", token: nil).text
        for file in try Self.scripts() {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(served.contains(text), "/studio.js lacks \(file.lastPathComponent): add it to StudioAssets.javaScript and Package.swift")
        }
        let css = try String(contentsOf: Self.resources.appendingPathComponent("studio.css"), encoding: .utf8)
        #expect(f.send(.get, "/studio.css", token: nil).text == css)
        let login = try String(contentsOf: Self.resources.appendingPathComponent("login.html"), encoding: .utf8)
        #expect(f.send(.get, "/login", token: nil).text == login.replacingOccurrences(of: "<!--MESSAGE-->", with: ""))
    }
}
