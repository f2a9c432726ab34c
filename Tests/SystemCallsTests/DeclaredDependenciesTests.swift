import Foundation
import SystemCalls
import Testing

/// Every target declares each project module it imports, and nothing it does not import: the
/// manifest (`swift package dump-package`) against the `import` lines of each target's Swift files.
/// SwiftPM's `--explicit-target-dependency-import-check` accepts a module reached through another
/// dependency, so this scan is what keeps the declarations honest.
@Suite struct DeclaredDependenciesTests {
    /// Dependencies a target declares without importing them, each needed for another reason.
    static let linkOnly: [String: [String: String]] = [
        "gtk-webview-sample": ["CWebKitGtk": "a C target: it includes <webkit/webkit.h>, found through the system library's pkg-config flags"]
    ]

    /// The modules `source` (one Swift file) imports: `import X`, `public import X`,
    /// `@testable import X`, `@_exported import X`, `import struct X.Y`. Comments and multi-line
    /// string literals do not count; `#if canImport` branches do.
    static func importedModules(in source: String) -> Set<String> {
        let pattern = try! NSRegularExpression(
            pattern: #"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?(\w+)"#)
        var modules: Set<String> = []
        var inBlockComment = false
        var inMultilineString = false
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            var code = String(line)
            if inMultilineString {
                if code.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString = false }
                continue
            }
            if inBlockComment {
                guard let end = code.range(of: "*/") else { continue }
                code = String(code[end.upperBound...])
                inBlockComment = false
            }
            while let start = code.range(of: "/*") {
                if let end = code.range(of: "*/", range: start.upperBound..<code.endIndex) {
                    code.removeSubrange(start.lowerBound..<end.upperBound)
                } else {
                    code = String(code[..<start.lowerBound])
                    inBlockComment = true
                }
            }
            if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
            if code.components(separatedBy: "\"\"\"").count % 2 == 0 { inMultilineString = true }
            let range = NSRange(code.startIndex..., in: code)
            if let match = pattern.firstMatch(in: code, range: range), let name = Range(match.range(at: 1), in: code) {
                modules.insert(String(code[name]))
            }
        }
        return modules
    }

    /// One target of the manifest: its name, folder (relative to the root), excluded paths, and
    /// the names of its declared dependencies.
    struct Target {
        let name: String
        let path: String
        let exclude: [String]
        let dependencies: Set<String>
    }

    /// The package's targets, as `swift package dump-package` prints them.
    static func manifestTargets() throws -> [Target] {
        let root = SystemCallBoundaryTests.root.path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("autotrack-dump-package-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: output) }
        // The toolchain's `swift`: from PATH, else where our images install it. A scratch path of
        // its own, so a build holding `.build`'s lock cannot block the dump.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("autotrack-dump-scratch-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let command = """
            swift=$(command -v swift || ls /opt/swift/usr/bin/swift /usr/bin/swift 2>/dev/null | head -n 1) && \
            cd '\(root)' && "$swift" package --scratch-path '\(scratch)' dump-package > '\(output.path)'
            """
        let outcome = try Posix.runShellCommand(command, input: [], timeout: .seconds(120))
        try #require(outcome == .exited(0), "`swift package dump-package` in \(root) ended \(outcome)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: output)) as? [String: Any]
        let targets = try #require(json?["targets"] as? [[String: Any]], "dump-package printed no `targets`")
        return try targets.map { target in
            let name = try #require(target["name"] as? String)
            let type = target["type"] as? String ?? "regular"
            let folder = type == "test" ? "Tests" : "Sources"
            let dependencies = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency -> String? in
                for kind in ["byName", "target", "product"] {
                    if let reference = dependency[kind] as? [Any], let first = reference.first as? String { return first }
                }
                return nil
            }
            return Target(
                name: name, path: target["path"] as? String ?? "\(folder)/\(name)", exclude: target["exclude"] as? [String] ?? [],
                dependencies: Set(dependencies))
        }
    }

    /// The modules the Swift files of `target` import.
    static func imports(of target: Target) throws -> Set<String> {
        let files = SystemCallBoundaryTests.swiftFiles(under: target.path).filter { file in
            !target.exclude.contains { file.hasPrefix(target.path + "/" + $0 + "/") || file == target.path + "/" + $0 }
        }
        return try files.reduce(into: []) { modules, file in
            let text = try String(contentsOf: SystemCallBoundaryTests.root.appendingPathComponent(file), encoding: .utf8)
            modules.formUnion(importedModules(in: text))
        }
    }

    @Test func theScanFindsEveryFormOfImportAndSkipsCommentsAndStrings() {
        // Lines of a file, as an array so that this file's own scan sees none of them.
        let source = [
            "import Foundation", "public import EventModel", "@testable import Collector", "@_exported import ViewIdentity",
            "@preconcurrency internal import Hooks", "import struct KVCConfig.Rule", "#if canImport(CGtk)", "    import CGtk", "#endif",
            "// import Studio", "/* import Analytics", "   import Definitions */", "let fixture = \"\"\"", "    import PathDrift",
            "    \"\"\"", "let x = 1 // import Tracker",
        ].joined(separator: "\n")
        #expect(
            Self.importedModules(in: source)
                == ["Foundation", "EventModel", "Collector", "ViewIdentity", "Hooks", "KVCConfig", "CGtk"])
    }

    @Test(.timeLimit(.minutes(3))) func everyTargetDeclaresWhatItImportsAndImportsWhatItDeclares() throws {
        let targets = try Self.manifestTargets()
        #expect(targets.count > 40, "dump-package listed the package's targets (\(targets.count))")
        let project = Set(targets.map(\.name))
        var report: [String] = []
        for target in targets {
            let imported = try Self.imports(of: target).intersection(project).subtracting([target.name])
            let exceptions = Set((Self.linkOnly[target.name] ?? [:]).keys)
            let undeclared = imported.subtracting(target.dependencies).sorted()
            let unused = target.dependencies.subtracting(imported).subtracting(exceptions).sorted()
            if !undeclared.isEmpty { report.append("\(target.name) imports but does not declare: \(undeclared.joined(separator: ", "))") }
            if !unused.isEmpty { report.append("\(target.name) declares but never imports: \(unused.joined(separator: ", "))") }
        }
        #expect(report.isEmpty, "Package.swift's dependencies differ from the imports:\n\(report.joined(separator: "\n"))")
    }
}
