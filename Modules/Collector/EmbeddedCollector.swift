public import ATLPServer
import ATLPTLS
import EventModel
public import EventStore
import Foundation
import HTTPServer
import PostgresStore
import SecureChannel
import Studio
import Synchronization
public import SystemCalls

/// A whole collector inside the current process: the store `dbPath` names (`openStore`) and the ATLP/1 server with
/// the collector's handler. `serve` runs one; tests and the agent's `demo` start one on a
/// loopback port with a temporary database.
///
/// ```swift
/// let collector = EmbeddedCollector(dbPath: "/tmp/demo.sqlite")   // listens on 127.0.0.1:0
/// let address = try collector.start()                             // the real port
/// // ... point an agent at address ...
/// collector.stop()                                                 // drains, then closes
/// ```
public final class EmbeddedCollector: Sendable {
    /// Everything that shapes a collector besides its database.
    public struct Options: Sendable, Hashable {
        public var listen: SocketAddress
        public var access: CollectorAccess
        /// Largest frame payload accepted, announced in `WELCOME`.
        public var maxFrame: Int
        /// Largest `SNAPSHOT` payload accepted (it may exceed `maxFrame`), announced in `WELCOME`.
        public var maxSnapshotFrame: Int = 16 << 20
        public var idleTimeout: Duration
        public var durability: StoreOptions.Durability
        public var workerThreads: Int
        /// TLS: the certificate (chain) and private key PEM files; nil for plain TCP.
        public var tlsCertificate: String? = nil
        public var tlsKey: String? = nil
        /// Where the studio (docs/studio.md) listens, over HTTP (HTTPS with the TLS files); nil for
        /// none. It needs `access.adminToken`: the studio's login is that token.
        public var studio: SocketAddress? = nil
        /// Open a database whose ingest log lost acknowledged batches (`StoreOptions.acceptIngestLoss`).
        public var acceptIngestLoss = false

        public init(
            listen: SocketAddress = SocketAddress(host: "127.0.0.1", port: 0), access: CollectorAccess = CollectorAccess(),
            maxFrame: Int = 1 << 20, idleTimeout: Duration = .seconds(60), durability: StoreOptions.Durability = .full,
            workerThreads: Int = 4
        ) {
            self.listen = listen
            self.access = access
            self.maxFrame = maxFrame
            self.idleTimeout = idleTimeout
            self.durability = durability
            self.workerThreads = workerThreads
        }
    }

    public let dbPath: String
    public let options: Options
    private let log: (@Sendable (String) -> Void)?
    private let state = Mutex<(store: (any CollectorStore)?, server: ATLPService?)>((nil, nil))
    /// The studio's HTTP server, made with the ATLP server when `options.studio` is set.
    private let studioServer = Mutex<HTTPService?>(nil)

    /// A collector on `listen` (default `127.0.0.1:0`, an ephemeral port) writing to `dbPath`.
    /// `log` receives a line for each failure a client cannot see in full (a failed commit), and
    /// warnings at start (a TLS certificate expired or not yet valid).
    public convenience init(
        dbPath: String, listen: SocketAddress = SocketAddress(host: "127.0.0.1", port: 0),
        access: CollectorAccess = CollectorAccess(), log: (@Sendable (String) -> Void)? = nil
    ) {
        self.init(dbPath: dbPath, options: Options(listen: listen, access: access), log: log)
    }

    public init(dbPath: String, options: Options, log: (@Sendable (String) -> Void)? = nil) {
        self.dbPath = dbPath
        self.options = options
        self.log = log
    }

    /// Opens the database (creating and migrating it), then listens; returns the bound address.
    /// Calling it again while running returns the same address.
    @discardableResult
    public func start() throws(CollectorStartError) -> SocketAddress {
        let server = try prepare()
        var failure: CollectorStartError
        do throws(PosixError) {
            let address = try server.start()
            do throws(CollectorStartError) {
                try startStudio()
                return address
            } catch {
                failure = error
            }
        } catch {
            failure = CollectorStartError(listen: options.listen, error)
        }
        server.stop()
        // Forget the servers that could not bind, so a later start() may try again.
        studioServer.withLock { s in
            s?.stop()
            s = nil
        }
        let store = state.withLock { s -> (any CollectorStore)? in
            defer { s = (nil, nil) }
            return s.store
        }
        store?.close()
        throw failure
    }

    /// Binds and starts the studio's server, when there is one.
    private func startStudio() throws(CollectorStartError) {
        guard let studio = studioServer.withLock({ $0 }), let address = options.studio else { return }
        do throws(PosixError) {
            try studio.start()
        } catch {
            throw CollectorStartError(listen: address, error)
        }
    }

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until SIGINT
    /// or SIGTERM, then stops gracefully (answers what was read, closes) and returns.
    public func run(onStart: (SocketAddress) -> Void) throws(CollectorStartError) {
        let server = try prepare()
        defer { stop() }
        // The studio binds first, so `studioAddress` is known when `onStart` prints addresses.
        try startStudio()
        do throws(PosixError) {
            try server.run(onStart: onStart)
        } catch {
            throw CollectorStartError(listen: options.listen, error)
        }
    }

    /// Stops listening, lets requests already read finish, closes connections, then closes the
    /// database (checkpointing its WAL). Safe to call twice.
    public func stop() {
        let (store, server) = state.withLock { ($0.store, $0.server) }
        studioServer.withLock { $0 }?.stop()
        server?.stop()
        // stop() returns once no handler call runs, so nothing uses the store any more.
        store?.close()
    }

    /// The bound address while running.
    public var address: SocketAddress? { state.withLock { $0.server }?.address }

    /// The store, once started (closed after `stop()`): tests read what was stored through it.
    public var store: (any CollectorStore)? { state.withLock { $0.store } }

    /// The studio's bound address while running (with `options.studio`).
    public var studioAddress: SocketAddress? { studioServer.withLock { $0 }?.address }

    /// The server's counters, once started.
    public var statistics: ATLPServerStatistics? { state.withLock { $0.server }?.statistics }

    private func prepare() throws(CollectorStartError) -> ATLPService {
        if let server = state.withLock({ $0.server }) { return server }
        let store: any CollectorStore
        do throws(StoreError) {
            store = try openStore(
                dbPath, options: StoreOptions(access: .create, durability: options.durability, acceptIngestLoss: options.acceptIngestLoss))
        } catch {
            throw CollectorStartError(database: dbPath, error)
        }
        for notice in store.openingNotices { log?("warning: \(notice)") }
        let configuration = ATLPServerConfiguration(
            host: options.listen.host, port: options.listen.port, maxFrame: options.maxFrame,
            maxSnapshotFrame: options.maxSnapshotFrame, idleTimeout: options.idleTimeout, workerThreads: options.workerThreads)
        var security: SecureChannelFactory?
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            do throws(SecureChannelError) {
                let context = try TLSContext.server(certificateFile: certificate, keyFile: key)
                if let problem = context.certificateValidityProblem { log?("warning: \(problem)") }
                security = context.channels
            } catch {
                store.close()
                throw CollectorStartError(tls: error)
            }
        }
        let server = ATLPService(
            configuration: configuration, handler: CollectorHandler(store: store, access: options.access, log: log),
            security: security, log: log)
        if let studio = options.studio {
            do throws(CollectorStartError) {
                try makeStudio(at: studio, store: store, security: security)
            } catch {
                store.close()
                throw error
            }
        }
        return state.withLock { s in
            if let existing = s.server { return existing }
            s = (store, server)
            Self.rebuildRollups(store, log: log)
            return server
        }
    }

    /// The studio's server on `address`, over `store`'s pictures and rules, with the ATLP
    /// server's TLS; its login is the admin token.
    private func makeStudio(at address: SocketAddress, store: any CollectorStore, security: SecureChannelFactory?) throws(CollectorStartError) {
        guard options.access.adminToken != nil else {
            throw CollectorStartError(studio: "the studio's login is the admin token; give --admin-token")
        }
        guard let pictures = store as? any SnapshotStore else {
            throw CollectorStartError(studio: "the store at \(store.location) keeps no pictures")
        }
        let access = options.access
        let handler = StudioHandler(
            backend: CollectorStudioBackend(store: store, pictures: pictures),
            configuration: StudioHandler.Configuration(isAdminToken: { access.isAdmin(token: $0) }))
        let server = HTTPService(
            configuration: HTTPServerConfiguration(host: address.host, port: address.port, maxBodyBytes: 1 << 20), handler: handler,
            security: security)
        studioServer.withLock { $0 = server }
    }

    /// Rebuilds the store's rollups that wait (after a schema migration or a prune) on a thread
    /// of its own while the collector serves: appends go on between its short transactions, and
    /// reports read the events until it is done. Logs about ten lines per app; stops quietly
    /// when the store closes.
    private static func rebuildRollups(_ store: any CollectorStore, log: (@Sendable (String) -> Void)?) {
        let thread = Thread {
            var lines = RollupProgressLines()
            do throws(StoreError) {
                try store.rebuildRollups { p in
                    if let line = lines.line(p) { log?(line) }
                }
            } catch {
                if error.code != .closed { log?("could not rebuild the report rollups (reports read the events meanwhile): \(LogText.escaped("\(error)"))") }
            }
        }
        thread.name = "autotrack-rollups"
        thread.start()
    }
}

/// Why a collector could not start: its database would not open, or its address would not bind.
public struct CollectorStartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: String, Sendable, Hashable {
        case database, listen, tls, studio
    }

    public var code: Code
    public var message: String

    init(database path: String, _ error: StoreError) {
        code = .database
        message = DatabaseURI.redacting("cannot open the database \(path): \(error)", secretsOf: path)
    }

    init(studio reason: String) {
        code = .studio
        message = "cannot serve the studio: \(reason)"
    }

    init(tls error: SecureChannelError) {
        code = .tls
        message = "cannot set up TLS: \(error); check --tls-cert and --tls-key (PEM files, the key matching the certificate)"
    }

    init(listen: SocketAddress, _ error: PosixError) {
        code = .listen
        var m = "cannot listen on \(listen): \(error)"
        if error.errno == EADDRINUSE { m += ". Another process uses this port; stop it or give another --listen (port 0 picks a free one)." }
        if error.errno == EADDRNOTAVAIL { m += ". This machine has no such address; use 127.0.0.1 or 0.0.0.0." }
        if error.errno == EACCES { m += ". Ports below 1024 need privileges; use a port above 1023." }
        message = m
    }

    public var description: String { message }
}
