import Foundation
import Testing

/// All system calls live in `Modules/SystemCalls` (`enum Posix`): a scan of the other sources
/// finds an import of the C library, a call qualified with it (`Glibc.write`), or a raw call of
/// one of the system calls below.
@Suite struct SystemCallBoundaryTests {
    /// Calls that have no other meaning in our sources: unqualified, they are the C library's.
    static let rawCalls = [
        "posix_spawn", "posix_spawnp", "waitpid", "wait4", "fork", "execve", "execv", "kill", "signal", "sigaction",
        "pthread_sigmask", "usleep", "nanosleep", "sleep", "clock_gettime", "gettimeofday", "pread", "pwrite", "readlink",
        "uname", "socket", "setsockopt", "getsockopt", "epoll_create1", "epoll_ctl", "epoll_wait", "poll", "pipe", "dup",
        "dup2", "fcntl", "ioctl", "fsync", "ftruncate", "rename", "unlink", "mkdir", "rmdir", "opendir", "readdir",
        "getrlimit", "setrlimit", "isatty", "mmap", "munmap", "getenv", "setenv", "unsetenv", "putenv", "getpid", "getppid",
        "geteuid", "getuid", "pthread_self", "pthread_equal", "pthread_create",
    ]

    /// What breaks the rule in `source` (one Swift file), as `line: text`. `ownFunctions`: names
    /// of `rawCalls` the file's module declares itself (a test's `poll(_:within:)`), not counted.
    static func violations(in source: String, ownFunctions: Set<String> = []) -> [String] {
        let names = rawCalls.filter { !ownFunctions.contains($0) }.joined(separator: "|")
        let patterns = [
            #"^\s*(@_exported\s+)?import\s+(Glibc|Darwin|Musl)\b"#,
            #"\b(Glibc|Darwin|Musl)\."#,
            #"(?<![\w.])(\#(names))\s*\("#,
            #"(?<![\w.])environ\b"#,
        ].map { try! NSRegularExpression(pattern: $0) }
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Comments and string literals may name calls (`poll(2)`); only code counts.
            var code = String(line)
            if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
            code = code.replacingOccurrences(of: #""([^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
            let range = NSRange(code.startIndex..., in: code)
            if patterns.contains(where: { $0.firstMatch(in: code, range: range) != nil }) {
                found.append("\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        return found
    }

    /// The package's root, from this file's path (`Tests/SystemCallsTests/…`).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Swift files under `folder`, relative to the root.
    static func swiftFiles(under folder: String) -> [String] {
        let base = root.appendingPathComponent(folder)
        guard let walk = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { folder + "/" + $0 }.sorted()
    }

    @Test func aModulesOwnFunctionNamedLikeACallIsNotOne() {
        let source = "try poll(\"the first events\", within: 5) { done }\nkill()"
        #expect(Self.violations(in: source).count == 2)
        #expect(Self.violations(in: source, ownFunctions: ["poll", "kill"]).isEmpty)
    }

    @Test func theScanFindsRawCallsAndImports() {
        let source = """
            import Glibc
            let n = usleep(100)
            _ = Glibc.write(2, p, 1)
            _ = Posix.sleep(.seconds(1))  // usleep(100) in a comment
            let s = "poll(2)"
            shared.finished.signal()
            var p = environ
            let home = getenv("HOME")
            let settings = LaunchSettings(environment: env)
            """
        #expect(Self.violations(in: source).map { $0.prefix(2) } == ["1:", "2:", "3:", "7:", "8:"])
    }

    @Test func noModuleAppOrToolCallsTheCLibraryDirectly() throws {
        let files = (Self.swiftFiles(under: "Modules") + Self.swiftFiles(under: "Apps") + Self.swiftFiles(under: "Tools"))
            .filter { !$0.hasPrefix("Modules/SystemCalls/") }
        #expect(files.count > 100, "the scan found the sources (\(files.count) files under \(Self.root.path))")
        var report: [String] = []
        for file in files {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            report += Self.violations(in: text).map { "\(file):\($0)" }
        }
        #expect(report.isEmpty, "system calls outside Modules/SystemCalls (add them to Posix):\n\(report.joined(separator: "\n"))")
    }

    /// Test files that call the C library themselves, and why. Each must still do so (a file
    /// that no longer does leaves the list).
    static let testFilesCallingTheCLibrary: [String: String] = [
        "Tests/SystemCallsTests/SystemCallBoundaryTests.swift": "its own examples of what the scan finds",
        "Tests/EndToEndTests/RawATLPClient.swift": "a third-party ATLP/1 client in plain socket calls, as docs/wire.md says one can be written",
        "Tests/MatchingTests/CircleSelectionTests.swift": "the C library's POSIX regular expressions, an independent reference for path patterns",
    ]

    @Test func testsCallTheCLibraryOnlyThroughPosixSaveTheListedFiles() throws {
        let files = Self.swiftFiles(under: "Tests")
        #expect(files.count > 100, "the scan found the tests (\(files.count) files under \(Self.root.path))")
        let texts = try Dictionary(
            uniqueKeysWithValues: files.map { ($0, try String(contentsOf: Self.root.appendingPathComponent($0), encoding: .utf8)) })
        // Each test target's own functions named like a system call (`poll`, `kill`), by folder.
        let declaration = try NSRegularExpression(pattern: #"\bfunc\s+(\w+)"#)
        var ownFunctions: [String: Set<String>] = [:]
        for (file, text) in texts {
            let folder = file.split(separator: "/").prefix(2).joined(separator: "/")
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let name = Range(match.range(at: 1), in: text).map({ String(text[$0]) }), Self.rawCalls.contains(name) {
                    ownFunctions[folder, default: []].insert(name)
                }
            }
        }
        var report: [String] = []
        var listedWithout: [String] = []
        for file in files {
            let folder = file.split(separator: "/").prefix(2).joined(separator: "/")
            let found = Self.violations(in: texts[file]!, ownFunctions: ownFunctions[folder] ?? [])
            if Self.testFilesCallingTheCLibrary[file] == nil {
                report += found.map { "\(file):\($0)" }
            } else if found.isEmpty {
                listedWithout.append(file)
            }
        }
        #expect(report.isEmpty, "system calls in tests (use Posix, adding what is missing):\n\(report.joined(separator: "\n"))")
        #expect(listedWithout.isEmpty, "listed as calling the C library but no longer do (drop them from the list): \(listedWithout)")
    }

    /// Foundation's `Process.run()` on Linux reads past a buffer while it lists `/proc/self/fd`
    /// and now and then crashes the process that calls it (a whole test run, once). Every program
    /// is started through `SystemCalls.ChildProgram` (or `Posix.spawn`), in tests and tools too.
    @Test func noSourceStartsAProgramThroughFoundationsProcess() throws {
        let files = Self.swiftFiles(under: "Modules") + Self.swiftFiles(under: "Apps") + Self.swiftFiles(under: "Tools")
            + Self.swiftFiles(under: "Tests")
        let pattern = try NSRegularExpression(pattern: #"(?<![\w.])(Foundation\.)?Process(\(\)|\.run\(|\s*[,)\]{]|$)"#)
        var report: [String] = []
        for file in files where file != "Tests/SystemCallsTests/SystemCallBoundaryTests.swift" {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var code = String(line)
                if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
                code = code.replacingOccurrences(of: #""([^"\\]|\\.)*""#, with: "\"\"", options: .regularExpression)
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    report.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(report.isEmpty, "Foundation's Process (use ChildProgram or runProgram):\n\(report.joined(separator: "\n"))")
        #expect(
            pattern.firstMatch(in: "let p = Process()", range: NSRange(location: 0, length: 17)) != nil,
            "the scan finds a Process")
    }

    /// One shape for every background thread of the modules: a `ServiceThread` (or a
    /// `ThreadPool`'s), never Foundation's `Thread`, a Dispatch queue or a bare `startThread`.
    @Test func everyModuleThreadIsAServiceThread() throws {
        let pattern = try NSRegularExpression(pattern: #"(?<![\w.])(Thread\s*(\(|\{|\.detachNewThread)|DispatchQueue\s*\(|DispatchQueue\.global|Posix\.startThread\()"#)
        let allowed: Set = ["Modules/SystemCalls/ServiceThread.swift", "Modules/SystemCalls/ThreadPool.swift"]
        var report: [String] = []
        for file in Self.swiftFiles(under: "Modules") + Self.swiftFiles(under: "Apps") where !allowed.contains(file) {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var code = String(line)
                if let comment = code.range(of: "//") { code = String(code[..<comment.lowerBound]) }
                if pattern.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil {
                    report.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(report.isEmpty, "threads started another way (use ServiceThread, WorkQueue or a BackgroundService):\n\(report.joined(separator: "\n"))")
        for sample in ["let t = Thread { }", "DispatchQueue(label: \"x\")", "Posix.startThread(name: \"x\") {"] {
            #expect(pattern.firstMatch(in: sample, range: NSRange(sample.startIndex..., in: sample)) != nil, "the scan finds \(sample)")
        }
    }
}
