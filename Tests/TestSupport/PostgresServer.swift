public import Foundation
import Synchronization
import SystemCalls

/// A real PostgreSQL server for one test (or, through `shared()`, for a whole test process):
/// `initdb` into a temporary directory, `pg_ctl` on a Unix socket in that directory
/// (`listen_addresses=''`: no TCP at all), fsync on. Stop it with `stop()` in a `defer`; its
/// deinit stops it too, so a failing test leaves no server behind.
///
/// PostgreSQL refuses to run as root: as root the server runs as the `postgres` user
/// (`runuser -u postgres --`, Debian's `postgresql` package creates it), otherwise as the current
/// user. Binaries come from `/usr/lib/postgresql/<version>/bin` (Debian) or `PATH`;
/// `Tools/setup.sh` installs them. Every command is bounded in time.
public final class PostgresServer: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `lock` (NSLock), so tests may stop it from any thread.
    private let lock = NSLock()
    private var running = false

    /// The temporary directory: the cluster in `data/`, the socket beside it, the server log in `log`.
    public let directory: URL
    /// The socket's port number (the socket file is `.s.PGSQL.<port>` in `directory`).
    public let port: Int
    private let bin: URL
    private let runAsPostgres: Bool

    /// Creates a cluster and starts it; throws (with the server log) when either fails.
    public init() throws {
        guard let bin = Self.binDirectory() else {
            throw PostgresServerError(
                "no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or PATH; "
                    + "run Tools/setup.sh, which installs Debian's postgresql package")
        }
        self.bin = bin
        runAsPostgres = Posix.effectiveUserID() == 0
        // Short: a Unix socket path must fit in 107 bytes.
        var template = Array("/tmp/atpg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresServerError("mkdtemp failed: errno \(errno)") }
        directory = URL(fileURLWithPath: String(cString: made))
        port = 50_000 + Int.random(in: 0..<10_000)
        if runAsPostgres {
            try Self.run(URL(fileURLWithPath: "/bin/chown"), ["postgres:", directory.path], within: 30)
        }
        do {
            try command(
                "initdb", ["-D", dataPath, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"],
                within: 60)
            try start()
            try psql("CREATE DATABASE autotrack", database: "postgres")
        } catch {
            stop()
            throw error
        }
    }

    /// A hot standby of `primary`: `pg_basebackup -R` over the primary's socket (streaming, so
    /// the standby starts from what the primary has committed) into a temporary directory of its
    /// own, started on its own port. It is read-only and replays what the primary commits.
    private init(standbyOf primary: PostgresServer) throws {
        bin = primary.bin
        runAsPostgres = primary.runAsPostgres
        var template = Array("/tmp/atpg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PostgresServerError("mkdtemp failed: errno \(errno)") }
        directory = URL(fileURLWithPath: String(cString: made))
        port = primary.port == 59_999 ? 50_000 : primary.port + 1
        if runAsPostgres {
            try Self.run(URL(fileURLWithPath: "/bin/chown"), ["postgres:", directory.path], within: 30)
        }
        do {
            try command(
                "pg_basebackup",
                ["-D", dataPath, "-R", "-X", "stream", "-c", "fast", "-h", primary.directory.path, "-p", String(primary.port), "-U", "postgres"],
                within: 120)
            try start()
        } catch {
            stop()
            throw error
        }
    }

    /// Starts a hot standby of this server (streaming replication, as `pg_basebackup -R` sets it up).
    public func startStandby() throws -> PostgresServer { try PostgresServer(standbyOf: self) }

    /// Whether this standby has replayed everything `primary` has written so far.
    public func hasReplayed(_ primary: PostgresServer) throws -> Bool {
        guard let lsn = try primary.psql("SELECT pg_current_wal_lsn()", database: "postgres").first else { return false }
        let answer = try psql("SELECT pg_last_wal_replay_lsn() >= '\(lsn)'::pg_lsn", database: "postgres")
        return answer.first == "t"
    }

    deinit { stop() }

    /// One server for the whole test process, started at its first use and stopped when the
    /// process exits. A test takes a database of its own on it (`createDatabase()`), so tests
    /// share one `initdb` instead of paying one each; a test that stops or restarts its server
    /// starts its own instead.
    public static func shared() throws -> PostgresServer {
        try sharedServer.withLock { server in
            if let server { return server }
            let started = try PostgresServer()
            server = started
            atexit { PostgresServer.stopShared() }
            return started
        }
    }

    private static let sharedServer = Mutex<PostgresServer?>(nil)

    private static func stopShared() {
        sharedServer.withLock { $0 }?.stop()
    }

    /// The libpq URI of database `name` (default `autotrack`, created at start), over the socket.
    public func uri(database name: String = "autotrack") -> String {
        "postgresql:///\(name)?host=\(directory.path)&port=\(port)&user=postgres"
    }

    /// Creates a fresh, empty database and returns its URI.
    public func createDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.prefix(8).lowercased()
        try psql("CREATE DATABASE \(name)", database: "postgres")
        return uri(database: name)
    }

    /// Runs `sql` on the database that `uri` (one of this server's) names.
    @discardableResult
    public func psql(uri: String, _ sql: String) throws -> [String] {
        try psql(sql, database: String(uri.dropFirst("postgresql:///".count).prefix { $0 != "?" }))
    }

    /// Starts the server (again, after `stopServer()`); waits until it accepts connections.
    public func start() throws {
        try lock.withLock {
            guard !running else { return }
            let options = "-k \(directory.path) -p \(port) -c listen_addresses='' -c fsync=on -c max_connections=100"
            try command("pg_ctl", ["-D", dataPath, "-l", logPath, "-w", "-t", "60", "-o", options, "start"], within: 70)
            running = true
        }
    }

    /// Stops the server (fast shutdown: connections are cut, committed data stays), keeping its data.
    public func stopServer() throws {
        try lock.withLock {
            guard running else { return }
            running = false
            try command("pg_ctl", ["-D", dataPath, "-m", "fast", "-w", "-t", "60", "stop"], within: 70)
        }
    }

    /// Stops the server (immediate shutdown if fast does not finish) and deletes its directory. Idempotent.
    public func stop() {
        if (try? stopServer()) == nil {
            _ = try? command("pg_ctl", ["-D", dataPath, "-m", "immediate", "-w", "-t", "30", "stop"], within: 40)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `sql` with `psql` (unaligned, tuples only, stop on the first error) and returns its output lines.
    @discardableResult
    public func psql(_ sql: String, database: String = "autotrack") throws -> [String] {
        let out = try command(
            "psql",
            ["-h", directory.path, "-p", String(port), "-U", "postgres", "-d", database, "-X", "-A", "-t", "-q",
             "-v", "ON_ERROR_STOP=1", "-c", sql],
            within: 60, asPostgres: false)
        return out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
    }

    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private var dataPath: String { directory.appendingPathComponent("data").path }
    private var logPath: String { directory.appendingPathComponent("log").path }

    @discardableResult
    private func command(_ name: String, _ arguments: [String], within seconds: Double, asPostgres: Bool? = nil) throws -> String {
        let executable = bin.appendingPathComponent(name)
        do {
            if asPostgres ?? runAsPostgres {
                return try Self.run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", executable.path] + arguments, within: seconds)
            }
            return try Self.run(executable, arguments, within: seconds)
        } catch let error as PostgresServerError {
            throw PostgresServerError("\(error.description)\nserver log:\n\(log.suffix(2_000))")
        }
    }

    /// Runs a program with output to a temporary file, killed after `seconds`; throws unless it exits 0.
    ///
    /// `Posix.runProgram`, not Foundation's `Process`: `pg_ctl start` leaves a server running
    /// that would inherit the descriptors `Process` watches to see its child end (so it never
    /// would); the child keeps none of the test process's descriptors from 3 up.
    @discardableResult
    static func run(_ executable: URL, _ arguments: [String], within seconds: Double) throws -> String {
        let outFile = "/tmp/atpg-out-\(UUID().uuidString)"
        defer { try? Posix.unlink(outFile) }
        let label = "\(executable.lastPathComponent) \(arguments.joined(separator: " "))"
        let outcome: ShellCommandOutcome
        do {
            outcome = try Posix.runProgram(
                executable.path, arguments: [executable.path] + arguments, output: outFile, timeout: .milliseconds(Int64(seconds * 1000)))
        } catch {
            throw PostgresServerError("cannot run \(label): \(error)")
        }
        let output = (try? String(contentsOfFile: outFile, encoding: .utf8)) ?? ""
        switch outcome {
        case .timedOut: throw PostgresServerError("\(label) did not finish within \(seconds) s")
        case .exited(0): return output
        case .exited(let status): throw PostgresServerError("\(label) failed (exit status \(status)): \(output)")
        }
    }

    /// Debian's newest `/usr/lib/postgresql/<version>/bin`, else the directory of `initdb` on PATH.
    static func binDirectory() -> URL? {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() {
            let bin = URL(fileURLWithPath: "\(root)/\(v)/bin")
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let bin = URL(fileURLWithPath: String(dir))
            if FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent("initdb").path) { return bin }
        }
        return nil
    }
}

/// The harness could not create, start, stop or query the server; the message says what and shows its log.
public struct PostgresServerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
