import ConnectionLoop
public import SecureChannel
public import SystemCalls
import Synchronization

/// An HTTP/1.1 server on our own system-call layer: one I/O thread multiplexing non-blocking
/// sockets with epoll, and a small pool of worker threads calling the handler.
///
/// Strict about input (RFC 9112 with the choices in docs/http-server.md), bounded in memory
/// per connection, and fair: the loop never blocks on one client, slow clients run into
/// deadlines (408), and a full server evicts waiting connections to serve a new one.
/// Its threads run from `start()` until `stop()` (or the end of `run()`).
///
///     let server = HTTPService(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 8080), handler: routes)
///     let address = try server.start()   // the bound address (the real port for port 0)
///     ...
///     server.stop()                      // drains: answers what was read, then closes
public final class HTTPService: Sendable {
    public let configuration: HTTPServerConfiguration
    private let handler: any HTTPHandler
    private let security: SecureChannelFactory?
    private let service = LoopService<HTTPConnections>(name: "http", what: "HTTP server", statistics: HTTPServerStatistics())

    /// With `security` (e.g. `TLSContext.server(certificateFile:keyFile:).channels` from ATLPTLS)
    /// every connection speaks HTTPS through a secure channel made for it; without, plain HTTP.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), handler: any HTTPHandler,
        security: SecureChannelFactory? = nil
    ) {
        self.configuration = configuration
        self.handler = handler
        self.security = security
    }

    /// Binds, listens and starts the threads; returns the bound address (the real port when
    /// the configuration says 0). Throws when the address cannot be bound.
    @discardableResult
    public func start() throws(PosixError) -> SocketAddress {
        let configuration = self.configuration
        let handler = self.handler
        let security = self.security
        let shared = service.shared
        return try service.start(
            host: configuration.host, port: configuration.port, workerThreads: configuration.workerThreads,
            settings: HTTPConnections.settings(configuration), security: security
        ) { HTTPConnections(configuration: configuration, handler: handler, shared: shared, secure: security != nil) }
    }

    /// The bound address while running.
    public var address: SocketAddress? { service.address }

    /// Stops gracefully: no new connections, no more requests read; what was read is answered
    /// and sent (within `stopGracePeriod`), then every connection is closed and the threads end.
    /// Returns once no handler call is running. Safe to call more than once.
    public func stop() { service.stop() }

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until SIGINT
    /// or SIGTERM, then stops gracefully and returns. (A process serving more than this server
    /// waits for the signals itself and calls `start()` and `stop()`.)
    public func run(onStart: (SocketAddress) -> Void = { _ in }) throws(PosixError) {
        try service.run(start: start, onStart: onStart)
    }

    /// A snapshot of the counters.
    public var statistics: HTTPServerStatistics { service.shared.statistics.withLock { $0 } }
}
