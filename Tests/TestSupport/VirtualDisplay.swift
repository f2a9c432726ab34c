public import Foundation
import Synchronization
package import SystemCalls

/// A failure of a GUI test's harness: an X server, window or file that did not come in time.
public struct HarnessFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// An X server of a test's own (Xvfb on a free display number), driven with real synthesized
/// input (xdotool, XTest). Stopped (SIGTERM, then SIGKILL) when stopped or dropped; every wait
/// is bounded.
public final class VirtualDisplay {
    /// `:93`.
    public let name: String
    private let server: ChildProgram
    private let number: Int
    private var released = false
    /// Display numbers this process has claimed: suites run in parallel, and two of them picking
    /// the same free number at once would both "find" the one Xvfb that won, so their apps would
    /// share a display (and steal each other's focus).
    private static let claimed = Mutex<Set<Int>>([])

    /// Whether Xvfb and xdotool are installed (`Tools/setup.sh` installs them).
    public static var isAvailable: Bool { executable("Xvfb") != nil && executable("xdotool") != nil }

    /// Starts Xvfb on the first free display from :90, `width`×`height`×24.
    public init(width: Int = 1280, height: Int = 800) throws {
        guard let xvfb = VirtualDisplay.executable("Xvfb") else {
            throw HarnessFailure("Xvfb is not installed; run Tools/setup.sh (apt-get install xvfb xdotool)")
        }
        for n in 90..<190 {
            VirtualDisplay.removeIfAbandoned(n)
            guard !FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock"),
                !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)"),
                VirtualDisplay.claimed.withLock({ $0.insert(n).inserted })
            else { continue }
            let p = try ChildProgram(
                xvfb, arguments: [":\(n)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"],
                standardOutput: .discarded, standardError: .discarded)
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline, p.isRunning, !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") {
                Thread.sleep(forTimeInterval: 0.02)
            }
            if p.isRunning, FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)") {
                name = ":\(n)"
                server = p
                number = n
                return
            }
            _ = p.stop(within: .seconds(5))
            VirtualDisplay.claimed.withLock { _ = $0.remove(n) }
        }
        throw HarnessFailure("no free X display between :90 and :189 accepted Xvfb")
    }

    deinit { stop() }

    /// Removes display `n`'s lock and socket when the X server that wrote the lock is gone (a
    /// killed test run leaves them behind, and a hundred of them would leave no display free).
    /// A lock of a live process, or one not yet written in full, is left alone.
    private static func removeIfAbandoned(_ n: Int) {
        let lock = "/tmp/.X\(n)-lock"
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0
        else { return }
        guard !Posix.processExists(pid) else { return }
        try? FileManager.default.removeItem(atPath: lock)
        try? FileManager.default.removeItem(atPath: "/tmp/.X11-unix/X\(n)")
    }

    /// Stops the server.
    public func stop() {
        defer {
            // Xvfb may leave its lock and socket behind; what a gone server left is removed now.
            if !server.isRunning { VirtualDisplay.removeIfAbandoned(number) }
            if !released { VirtualDisplay.claimed.withLock { _ = $0.remove(number) } }
            released = true
        }
        guard server.isRunning else { return }
        server.terminate()
        _ = server.stop(within: .seconds(5))
    }

    /// The environment a program on this display runs with: `DISPLAY` set, Wayland unset.
    public func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env["DISPLAY"] = name
        env["WAYLAND_DISPLAY"] = nil
        env["GDK_BACKEND"] = "x11"
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Runs xdotool with `arguments` on this display; its standard output.
    @discardableResult
    public func xdotool(_ arguments: [String], within seconds: Double = 20) throws -> String {
        guard let tool = VirtualDisplay.executable("xdotool") else { throw HarnessFailure("xdotool is not installed") }
        let p = try GUIProcess(tool, arguments, environment: environment())
        let status = try p.waitForExit(within: seconds)
        guard status == 0 else { throw HarnessFailure("xdotool \(arguments.joined(separator: " ")) exited \(status): \(p.standardError)") }
        return p.standardOutput
    }

    /// The id of the first shown window whose title matches the regular expression `title`
    /// (xdotool's `search --name`), waiting until there is one.
    ///
    /// With `program` (the process that shows it), a program that ends first fails at once, and
    /// either failure says what it wrote on stderr (the last 2,000 bytes).
    public func window(titled title: String, within seconds: Double = 60, of program: GUIProcess? = nil) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let out = try? xdotool(["search", "--onlyvisible", "--name", title]),
                let first = out.split(separator: "\n").first
            {
                return String(first)
            }
            if let program, !program.isRunning {
                throw HarnessFailure(
                    "\(program.label) ended (status \(program.exitStatus.map(String.init) ?? "?")) before a window titled \"\(title)\" appeared on \(name); "
                        + "stderr: \(program.standardError.suffix(2000))")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let said = program.map { "; \($0.label)'s stderr: \($0.standardError.suffix(2000))" } ?? ""
        throw HarnessFailure("no window titled \"\(title)\" appeared on \(name) within \(seconds) s\(said)")
    }

    /// A left click at (`x`, `y`) in `window`'s coordinates.
    public func click(window: String, x: Int, y: Int) throws {
        try xdotool(["mousemove", "--window", window, String(x), String(y), "click", "1"])
    }

    /// The full path of `name` in `$PATH`.
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in (path + ":/usr/bin:/bin").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        return nil
    }
}

/// A program under test with its output in files (a GUI program may print much); killed when dropped.
public final class GUIProcess {
    package let process: ChildProgram
    private let outFile: URL
    private let errFile: URL
    public var label: String { process.label }

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw HarnessFailure("\(executable) is missing: build first with `swift build --build-tests`")
        }
        let dir = URL(fileURLWithPath: NSTemporaryDirectory())
        let tag = UUID().uuidString.prefix(8)
        outFile = dir.appendingPathComponent("gui-\(tag).out")
        errFile = dir.appendingPathComponent("gui-\(tag).err")
        guard FileManager.default.createFile(atPath: outFile.path, contents: nil),
            FileManager.default.createFile(atPath: errFile.path, contents: nil)
        else { throw HarnessFailure("cannot create output files in \(dir.path); check $TMPDIR") }
        let out = try FileHandle(forWritingTo: outFile)
        let err = try FileHandle(forWritingTo: errFile)
        defer {
            try? out.close()
            try? err.close()
        }
        process = try ChildProgram(
            executable, arguments: arguments, environment: environment, standardOutput: .descriptor(out.fileDescriptor),
            standardError: .descriptor(err.fileDescriptor))
    }

    deinit {
        kill()
        _ = process.waitForExit(within: .seconds(5))
        try? FileManager.default.removeItem(at: outFile)
        try? FileManager.default.removeItem(at: errFile)
    }

    public var standardOutput: String { (try? String(contentsOf: outFile, encoding: .utf8)) ?? "" }
    public var standardError: String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }
    public var isRunning: Bool { process.isRunning }
    /// Its process id.
    public var pid: Int32 { process.pid }
    /// Its exit status (128 + the signal when one ended it); nil while it runs.
    public var exitStatus: Int32? { process.ended?.shellStatus }

    public func kill(_ signal: Int32 = SIGKILL) { process.send(signal) }

    /// Waits for the exit: its status (128 + the signal when one ended it); kills the process
    /// and throws past the deadline.
    @discardableResult
    public func waitForExit(within seconds: Double) throws -> Int32 {
        guard let ending = process.waitForExit(within: .milliseconds(Int64(seconds * 1000))) else {
            kill()
            throw HarnessFailure("\(label): still running after \(seconds) s (killed); stderr: \(standardError.suffix(2000))")
        }
        return ending.shellStatus
    }
}

/// Page trees written by `autotrack-agent run --tree-dir` (docs/gtk.md "Trees"), read to find
/// where to click.
public struct WidgetTree {
    public let root: [String: Any]

    /// A tree already parsed (a snapshot's, say).
    public init(root: [String: Any]) { self.root = root }

    /// Waits until `directory/<page>.json` exists (newer than `since`, when given) and reads it.
    public static func wait(
        directory: URL, page: String, newerThan since: Date? = nil, within seconds: Double = 30
    ) throws -> WidgetTree {
        let file = directory.appendingPathComponent(page + ".json")
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
                since.map({ ((attributes[.modificationDate] as? Date) ?? .distantPast) > $0 }) ?? true,
                let data = try? Data(contentsOf: file),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            {
                return WidgetTree(root: object)
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessFailure("no tree \(file.path) within \(seconds) s")
    }

    /// Every node, depth first.
    public var nodes: [[String: Any]] {
        var out: [[String: Any]] = []
        var pending = [root]
        while let n = pending.popLast() {
            out.append(n)
            pending.append(contentsOf: ((n["children"] as? [[String: Any]]) ?? []).reversed())
        }
        return out
    }

    /// The first node whose `key` (`id`, `title`, `path`) is `value`.
    public func node(_ key: String, _ value: String) throws -> [String: Any] {
        guard let n = nodes.first(where: { $0[key] as? String == value }) else {
            throw HarnessFailure("no node with \(key) \"\(value)\" in the tree of \(root["path"] ?? "?")")
        }
        return n
    }

    /// The centre of a node's `frame`, in window coordinates.
    public static func center(_ node: [String: Any]) throws -> (x: Int, y: Int) {
        guard let f = node["frame"] as? [NSNumber], f.count == 4 else {
            throw HarnessFailure("node \(node["path"] ?? "?") has no frame (it is not shown)")
        }
        return (f[0].intValue + f[2].intValue / 2, f[1].intValue + f[3].intValue / 2)
    }
}
