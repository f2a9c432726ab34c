import ATLPClient
import ATLPWire
import EventModel
import Foundation
import SystemCalls

/// The collector `demo` starts when no `--to` is given: the real `autotrack-collector serve`
/// (beside this executable, or `$AUTOTRACK_COLLECTOR`) as a child process on a loopback port
/// with the demo's database, so the agent links no collector, store or studio code. Its output
/// goes to a log file, shown when it fails; `stop()` ends it with SIGTERM as a user would.
final class DemoCollector {
    let pid: pid_t
    let address: SocketAddress
    /// The admin token it was started with, for publishing the demo's rules.
    let adminToken: String
    let executable: String
    let logPath: String
    /// Its exit status once `stop()` reaped it (then `stop()` does nothing more).
    private var ended: Int32??

    /// Starts `serve` on `database` and waits (at most 60 s) until it listens.
    init(database: String, acceptsSnapshots: Bool, scratch: String) throws(DemoCollectorError) {
        guard let executable = Self.locate() else {
            throw DemoCollectorError(
                "autotrack-collector is not beside autotrack-agent; build it with 'swift build --product autotrack-collector' "
                    + "or set AUTOTRACK_COLLECTOR to its path")
        }
        self.executable = executable
        logPath = scratch + "/collector.log"
        let ready = scratch + "/collector.address"
        adminToken = "demo-" + (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max), radix: 16) }.joined()
        var arguments = [
            executable, "serve", "--listen", "127.0.0.1:0", "--db", database, "--ready-file", ready, "--admin-token", adminToken,
        ]
        if acceptsSnapshots { arguments.append("--accept-snapshots") }
        let spawned: pid_t
        do {
            let input = try Posix.open("/dev/null", O_RDONLY)
            defer { Posix.close(input) }
            let output = try Posix.open(logPath, O_WRONLY | O_CREAT | O_TRUNC)
            defer { Posix.close(output) }
            spawned = try Posix.spawn(
                executable, arguments: arguments, environment: nil, defaultSignals: [SIGTERM, SIGINT], standardInput: input,
                standardOutput: output, closeFromThree: true)
        } catch {
            throw DemoCollectorError("cannot start \(executable): \(error)")
        }
        pid = spawned
        let deadline = ContinuousClock.now + .seconds(60)
        var announced: SocketAddress?
        while announced == nil {
            // `HOST:PORT`, written whole (atomically) once it listens.
            if let text = try? String(contentsOfFile: ready, encoding: .utf8), let colon = text.lastIndex(of: ":"),
                let port = UInt16(text[text.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
            {
                announced = SocketAddress(host: String(text[..<colon]), port: port)
                break
            }
            if let status = try? Posix.exitStatusIfEnded(spawned) {
                throw DemoCollectorError("the collector exited with status \(status) before listening:\n\(Self.tail(of: logPath))")
            }
            guard ContinuousClock.now < deadline else {
                try? Posix.sendSignal(SIGKILL, to: spawned)
                _ = try? Posix.waitForExit(spawned)
                throw DemoCollectorError("the collector did not listen within 60 s:\n\(Self.tail(of: logPath))")
            }
            Posix.sleep(.milliseconds(20))
        }
        address = announced!
    }

    /// Publishes `rules` (their JSON) with the admin token, so the report shows what they read.
    func publish(_ rules: [JSONValue]) throws(TransportError) {
        let connection = try ATLPConnection.connect(
            to: address, hello: Hello(appKey: "demo-admin", agent: "autotrack-agent demo", token: adminToken), timeout: .seconds(10))
        defer { connection.close() }
        _ = try connection.publish(rules: rules, sampleRate: 1)
    }

    /// Ends the collector (SIGTERM: what it read is answered, then it exits), at most 30 s; its exit status.
    @discardableResult
    func stop() -> Int32? {
        if let ended { return ended }
        try? Posix.sendSignal(SIGTERM, to: pid)
        var status: Int32?
        if case .exited(let s)? = try? Posix.waitForExit(pid, until: ContinuousClock.now + .seconds(30), killing: pid, every: .milliseconds(10)) {
            status = s
        }
        ended = .some(status)
        return status
    }

    /// `autotrack-collector report --db DATABASE --format FORMAT`: its standard output, or why it failed.
    func report(database: String, format: String, scratch: String) -> Result<String, DemoCollectorError> {
        let output = scratch + "/report.out"
        do {
            let outcome = try Posix.runProgram(
                executable, arguments: [executable, "report", "--db", database, "--format", format], output: output,
                timeout: .seconds(120))
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            guard case .exited(0) = outcome else { return .failure(DemoCollectorError("the report failed: \(text)")) }
            return .success(text)
        } catch {
            return .failure(DemoCollectorError("cannot run the report: \(error)"))
        }
    }

    /// The last lines of the collector's log.
    var logTail: String { Self.tail(of: logPath) }

    private static func tail(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    /// `$AUTOTRACK_COLLECTOR`, or `autotrack-collector` beside this executable (or in `../bin`).
    static func locate() -> String? {
        let fm = FileManager.default
        if let given = ProcessInfo.processInfo.environment["AUTOTRACK_COLLECTOR"], fm.isExecutableFile(atPath: given) { return given }
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for candidate in ["autotrack-collector", "../bin/autotrack-collector"] {
            let path = me.appendingPathComponent(candidate).standardizedFileURL.path
            if fm.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}

/// Why the demo's own collector did not start or answer.
struct DemoCollectorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
