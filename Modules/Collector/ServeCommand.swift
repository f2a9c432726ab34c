import ATLPServer
public import CommandSupport
import EventStore
import Foundation
import PostgresStore
import SQLiteStore
import SystemCalls

/// `serve`: the collector as a service, until SIGINT or SIGTERM.
public struct ServeCommand: Command {
    public static let name = "serve"
    public static let abstract = "receives events over ATLP/1 into SQLite and serves published rules"
    public static let discussion = """
        Listens for agents speaking ATLP/1 and stores their events in an SQLite database
        (WAL). A batch is acknowledged only once committed; repeated event ids are dropped
        and counted; invalid events are kept with their reason. CONFIG returns the published
        rules for the app's key and version; PUBLISH needs the admin token. Stops cleanly on
        SIGINT (Ctrl-C) or SIGTERM: requests already read are answered, then it exits.

        The first line of output is always 'listening on HOST:PORT' with the port actually
        bound, so '--listen 127.0.0.1:0' picks a free port that scripts can read. The second is
        'database PATH' (absolute). With --studio the third is 'studio http://HOST:PORT/'
        (https with TLS): the studio page (docs/studio.md), where the admin token logs in.

        An older SQLite database is migrated when it opens; the report rollups a migration or
        an interrupted prune left to rebuild are rebuilt while it serves, on a thread of its
        own, with about ten progress lines per app on stderr (reports read the events meanwhile).
        """
    static let listen = Option.single("listen", "HOST:PORT", help: "address to listen on; [::1]:7070 for IPv6", default: "127.0.0.1:7070")
    static let db = Option.single(
        "db", "FILE|URI", help: "the database, created when absent, or a postgresql:// URI that several collectors may share (docs/schema.md)",
        default: "./autotrack.sqlite")
    static let maxFrame = Option.single("max-frame", "BYTES", help: "largest frame payload accepted", default: "1048576")
    static let maxSnapshotFrame = Option.single(
        "max-snapshot-frame", "BYTES", help: "largest SNAPSHOT payload accepted after HELLO, a page picture and its tree (never below --max-frame)",
        default: "16777216")
    static let idleTimeout = Option.single("idle-timeout", "SECONDS", help: "close connections idle this long", default: "60")
    static let ingestToken = Option.single(
        "ingest-token", "TOKEN", help: "HELLO must carry this token (or the admin token)", environment: "AUTOTRACK_INGEST_TOKEN")
    static let adminToken = Option.single(
        "admin-token", "TOKEN", help: "a HELLO carrying it may PUBLISH rules; without it nobody can publish", environment: "AUTOTRACK_ADMIN_TOKEN")
    static let readyFile = Option.single(
        "ready-file", "PATH",
        help: "once listening, write HOST:PORT to PATH (atomically: a temporary file renamed), so a script can wait for the file before connecting")
    static let durability = Option.single(
        "durability", "MODE",
        help: "full: a commit survives power loss before its ACK;\nnormal: survives a crash of the collector only, faster on slow disks",
        default: "full")
    static let tlsCertificate = Option.single(
        "tls-cert", "FILE", help: "serve TLS (1.2 or later) with this certificate (PEM; a chain may follow)")
    static let tlsKey = Option.single("tls-key", "FILE", help: "...and this private key (PEM); give both or neither. Plain TCP otherwise")
    static let studio = Option.single(
        "studio", "HOST:PORT",
        help: "also serve the studio (pictures of the apps, definitions, heatmaps) over HTTP there, HTTPS with the TLS files; needs --admin-token")
    static let acceptSnapshots = Option.flag(
        "accept-snapshots",
        help: "store the pictures agents started with --snapshots send unasked; without it a SNAPSHOT is stored only while circle mode is on for its app")
    static let acceptIngestLoss = Option.flag(
        "accept-ingest-loss",
        help: "start although the ingest log (FILE-ingest) lost acknowledged batches or cannot be read: store what it still holds, "
            + "keep the damaged files aside, say what was lost. Without it serve refuses, saying the same")
    public static let optionGroups = [
        OptionGroup([
            listen, db, maxFrame, maxSnapshotFrame, idleTimeout, ingestToken, adminToken, readyFile, durability, tlsCertificate, tlsKey,
            studio, acceptSnapshots, acceptIngestLoss,
        ])
    ]
    public static let examples = """
        autotrack-collector serve --listen 127.0.0.1:7070 --db events.sqlite --ready-file ready \\
            --ingest-token "$INGEST" --admin-token "$ADMIN" &
        autotrack-agent demo --to 127.0.0.1:7070 --token "$INGEST"
        autotrack-collector serve --listen 127.0.0.1:0 --db studio.sqlite --admin-token "$ADMIN" --studio 127.0.0.1:0 \\
            --accept-snapshots &
        """

    public var listen: HostPort
    public var database: String
    public var options: EmbeddedCollector.Options
    /// Written with `HOST:PORT` once listening, so scripts can wait for it.
    public var readyFile: String?

    public init(arguments: inout Arguments) throws(UsageError) {
        listen = try HostPort(try arguments.value(defaulted: Self.listen))
        database = try arguments.value(defaulted: Self.db)
        guard !database.isEmpty else { throw UsageError("--db needs a file path") }
        let maxFrame = try arguments.int(defaulted: Self.maxFrame, in: 64...(1 << 30))
        let maxSnapshotFrame = try arguments.int(defaulted: Self.maxSnapshotFrame, in: 64...(1 << 30))
        let idle = try arguments.double(defaulted: Self.idleTimeout, in: 0.1...86_400)
        let ingest = try arguments.value(Self.ingestToken)
        let admin = try arguments.value(Self.adminToken)
        if let ingest, ingest.isEmpty { throw UsageError("--ingest-token must not be empty; leave it out to accept any agent") }
        if let admin, admin.isEmpty { throw UsageError("--admin-token must not be empty; leave it out to refuse every PUBLISH") }
        readyFile = try arguments.value(Self.readyFile)
        if readyFile?.isEmpty == true { throw UsageError("--ready-file needs a file path") }
        let durabilityText = try arguments.value(defaulted: Self.durability)
        guard let durability = StoreOptions.Durability(rawValue: durabilityText) else {
            throw UsageError("--durability '\(durabilityText)' is not full or normal")
        }
        let tlsCertificate = try arguments.value(Self.tlsCertificate)
        let tlsKey = try arguments.value(Self.tlsKey)
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw UsageError("give --tls-cert and --tls-key together (the certificate and its private key)")
        }
        let studio = try arguments.value(Self.studio).map { text throws(UsageError) in try HostPort(text) }
        if studio != nil, admin == nil {
            throw UsageError("--studio needs --admin-token (the studio's login); or set $AUTOTRACK_ADMIN_TOKEN")
        }
        let acceptIngestLoss = arguments.isSet(Self.acceptIngestLoss)
        let acceptSnapshots = arguments.isSet(Self.acceptSnapshots)
        try arguments.finish()
        options = EmbeddedCollector.Options(
            listen: SocketAddress(host: listen.host, port: listen.port),
            access: CollectorAccess(ingestToken: ingest, adminToken: admin, acceptsUnaskedSnapshots: acceptSnapshots), maxFrame: maxFrame,
            idleTimeout: .milliseconds(Int64((idle * 1000).rounded())), durability: durability)
        options.maxSnapshotFrame = max(maxFrame, maxSnapshotFrame)
        options.tlsCertificate = tlsCertificate
        options.tlsKey = tlsKey
        options.studio = studio.map { SocketAddress(host: $0.host, port: $0.port) }
        options.acceptIngestLoss = acceptIngestLoss
    }

    public func run(io: any OutputStreams) -> ExitCode {
        // A file becomes an absolute path; a PostgreSQL URI stays as given (printed without its password).
        let path = storeFile(database).map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? database
        let existed = storeFile(database) == nil || FileManager.default.fileExists(atPath: path)
        let collector = EmbeddedCollector(dbPath: path, options: options, log: { io.printError($0) })
        if let readyFile, let failure = Self.writeReadyFile(readyFile, address: "") {
            // Checked before listening, so a script never waits for a file that cannot appear.
            io.printError("autotrack-collector serve: \(failure)")
            return .failure
        }
        if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
        do throws(CollectorStartError) {
            try collector.run { address in
                io.print("listening on \(address)")
                io.print("database \(collector.store?.location ?? DatabaseURI.redacted(path))")
                if let studio = collector.studioAddress {
                    io.print("studio \(options.tlsCertificate == nil ? "http" : "https")://\(studio)/")
                }
                if let readyFile, let failure = Self.writeReadyFile(readyFile, address: "\(address)") {
                    io.printError("autotrack-collector serve: \(failure)")
                }
            }
        } catch {
            // A start that failed (a taken port) leaves no database it created behind.
            if !existed {
                for suffix in [""] + SQLiteEventStore.companionSuffixes { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            io.printError("autotrack-collector serve: \(error)")
            return .failure
        }
        if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
        let connections = collector.statistics?.accepted ?? 0
        let frames = collector.statistics?.framesReceived ?? 0
        io.print("stopped after \(connections) connection\(connections == 1 ? "" : "s") and \(frames) frame\(frames == 1 ? "" : "s")")
        return .success
    }

    /// Writes `address` and a newline to a temporary file beside `path`, then renames it onto
    /// `path`, so a reader sees the whole address or no file; nil, or what failed.
    static func writeReadyFile(_ path: String, address: String) -> String? {
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((address + "\n").utf8)) else {
            return "cannot write --ready-file \(path); check the directory exists and is writable"
        }
        do throws(PosixError) {
            try Posix.rename(temporary, path)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            return "cannot rename \(temporary) to --ready-file \(path); check the directory is writable"
        }
        return nil
    }
}
