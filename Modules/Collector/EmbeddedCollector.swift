public import ATLPServer
import ATLPTLS
import EventModel
public import EventStore
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
    /// The parts once made (`prepare`), nil before and after a start that failed.
    private let parts = Mutex<Parts?>(nil)

    /// What runs: the store, the servers, and the group that starts and stops them
    /// (CollectorServices.swift says in which order and why).
    private struct Parts: Sendable {
        let store: any CollectorStore
        let server: ATLPService
        let studio: HTTPService?
        let group: ServiceGroup
    }

    /// How long `stop` gives the services together (each server also bounds its own drain).
    static let stopGrace = Duration.seconds(30)

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

    /// Opens the database (creating and migrating it), then starts the store's work, the ATLP
    /// server and the studio, in that order; returns the ATLP server's bound address. Calling it
    /// again while running returns the same address. A part that cannot start stops those
    /// started before it, so a later `start()` may try again.
    @discardableResult
    public func start() throws(CollectorStartError) -> SocketAddress {
        let parts = try prepare()
        do {
            try parts.group.start(grace: Self.stopGrace)
        } catch {
            self.parts.withLock { $0 = nil }
            throw (error as? CollectorStartError) ?? CollectorStartError(listen: options.listen, PosixError("\(error)", errno: EINVAL))
        }
        guard let address = parts.server.address else {
            throw CollectorStartError(listen: options.listen, PosixError("the collector was stopped; create a new one", errno: EINVAL))
        }
        return address
    }

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until SIGINT
    /// or SIGTERM, then stops gracefully (answers what was read, closes) and returns.
    public func run(onStart: (SocketAddress) -> Void) throws(CollectorStartError) {
        let address = try start()
        defer { stop() }
        do throws(PosixError) {
            try SignalWaiter.waitForTermination { onStart(address) }
        } catch {
            throw CollectorStartError(listen: options.listen, error)
        }
    }

    /// Stops the studio, then the ATLP server (no new connections; requests already read are
    /// answered), then the store (what its journal holds goes into `events`, its WAL is
    /// checkpointed, it closes). Safe to call twice.
    public func stop() {
        guard let parts = parts.withLock({ $0 }) else { return }
        for late in parts.group.stop(grace: Self.stopGrace) {
            log?("warning: the \(late) had not stopped \(Self.stopGrace) after the stop began; its threads were left to the process's exit")
        }
    }

    /// The bound address while running.
    public var address: SocketAddress? { parts.withLock { $0 }?.server.address }

    /// The store, once started (closed after `stop()`): tests read what was stored through it.
    public var store: (any CollectorStore)? { parts.withLock { $0 }?.store }

    /// The studio's bound address while running (with `options.studio`).
    public var studioAddress: SocketAddress? { parts.withLock { $0 }?.studio?.address }

    /// The server's counters, once started.
    public var statistics: ATLPServerStatistics? { parts.withLock { $0 }?.server.statistics }

    private func prepare() throws(CollectorStartError) -> Parts {
        if let parts = parts.withLock({ $0 }) { return parts }
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
        var services: [any BackgroundService] = [StoreService(store, log: log), ListeningService(server, listen: options.listen)]
        var studio: HTTPService?
        if let address = options.studio {
            do throws(CollectorStartError) {
                let made = try makeStudio(at: address, store: store, security: security)
                services.append(ListeningService(made, listen: address))
                studio = made
            } catch {
                store.close()
                throw error
            }
        }
        let made = Parts(store: store, server: server, studio: studio, group: ServiceGroup(services))
        let (kept, lost) = parts.withLock { p -> (Parts, Bool) in
            if let existing = p { return (existing, true) }
            p = made
            return (made, false)
        }
        // Another start made the parts meanwhile: this one's store goes.
        if lost { store.close() }
        return kept
    }

    /// The studio's server on `address`, over `store`'s pictures and rules, with the ATLP
    /// server's TLS; its login is the admin token.
    private func makeStudio(at address: SocketAddress, store: any CollectorStore, security: SecureChannelFactory?) throws(CollectorStartError)
        -> HTTPService
    {
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
        return HTTPService(
            configuration: HTTPServerConfiguration(host: address.host, port: address.port, maxBodyBytes: 1 << 20), handler: handler,
            security: security)
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
