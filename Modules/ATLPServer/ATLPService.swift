public import ATLPWire
import ConnectionLoop
public import SecureChannel
public import SystemCalls
import Synchronization

/// An ATLP/1 server: one I/O thread multiplexing non-blocking sockets with epoll (poll
/// where epoll is missing), and a small pool of worker threads for handler calls.
///
/// A slow or hostile client costs only its own buffers: writes never block the loop,
/// reading from a connection pauses when its replies or requests pile up, and every
/// limit (frame size, idle time, connection count) is enforced per connection.
/// Its threads run from `start()` until `stop()` (or the end of `run()`): call one of them.
public final class ATLPService: Sendable {
    public let configuration: ATLPServerConfiguration
    private let handler: any ATLPHandler
    private let security: SecureChannelFactory?
    private let log: (@Sendable (String) -> Void)?
    private let service = LoopService<ATLPConnections>(name: "atlp", what: "server", statistics: ATLPServerStatistics())

    /// With `security` (e.g. `TLSContext.server(...).channels` from ATLPTLS) every connection
    /// speaks through a secure channel made for it; without, plain TCP. `log` receives one line
    /// per event the operator should see (a client speaking plain ATLP to a TLS port, or TLS to
    /// a plain one); client-chosen text in it is escaped (`LogText`).
    public init(
        configuration: ATLPServerConfiguration = ATLPServerConfiguration(), handler: any ATLPHandler,
        security: SecureChannelFactory? = nil, log: (@Sendable (String) -> Void)? = nil
    ) {
        self.security = security
        self.log = log
        self.configuration = configuration
        self.handler = handler
    }

    /// Binds, listens and starts the threads; returns the bound address (the real port when
    /// the configuration says 0). Throws when the address cannot be bound.
    @discardableResult
    public func start() throws(PosixError) -> SocketAddress {
        let configuration = self.configuration
        let handler = self.handler
        let security = self.security
        let log = self.log
        let shared = service.shared
        return try service.start(
            host: configuration.host, port: configuration.port, workerThreads: configuration.workerThreads,
            settings: ATLPConnections.settings(configuration), security: security
        ) {
            let processor = RequestProcessor(
                handler: handler, maxFrame: configuration.maxFrame, maxSnapshotFrame: configuration.maxSnapshotFrame)
            return ATLPConnections(configuration: configuration, processor: processor, handler: handler, shared: shared, log: log)
        }
    }

    /// The bound address while running.
    public var address: SocketAddress? { service.address }

    /// Stops gracefully: no new connections, no more reading; what was read is answered and
    /// flushed (within `stopGracePeriod`), then every connection is closed and the threads
    /// end. Returns once no handler call is running. Safe to call more than once.
    public func stop() { service.stop() }

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until
    /// SIGINT or SIGTERM, then stops gracefully and returns.
    public func run(onStart: (SocketAddress) -> Void = { _ in }) throws(PosixError) {
        try service.run(start: start, onStart: onStart)
    }

    /// The listening socket while running, -1 otherwise (for fault injection in tests).
    var listenerDescriptor: Int32 { service.shared.listenerFD.load(ordering: .acquiring) }

    /// A snapshot of the counters.
    public var statistics: ATLPServerStatistics { service.shared.statistics.withLock { $0 } }
}
