import ATLPWire
import Foundation
import SecureChannel
import Synchronization
import SystemCalls

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
    private let shared: ServerShared
    private let lifecycle = Mutex<Lifecycle>(.idle)

    private enum Lifecycle {
        case idle, running(SocketAddress), stopped
    }

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
        self.shared = ServerShared()
    }

    /// Binds, listens and starts the threads; returns the bound address (the real port when
    /// the configuration says 0). Throws when the address cannot be bound.
    @discardableResult
    public func start() throws(PosixError) -> SocketAddress {
        // Under the lock from check to "running", so concurrent starts bind once.
        try lifecycle.withLock { (state) throws(PosixError) -> SocketAddress in
            switch state {
            case .running(let address): return address
            case .stopped: throw PosixError("start(): this server was stopped; create a new one", errno: EINVAL)
            case .idle: break
            }
            let bound = try launch()
            state = .running(bound)
            return bound
        }
    }

    private func launch() throws(PosixError) -> SocketAddress {
        let wanted = SocketAddress(host: configuration.host, port: configuration.port)
        let fd = try Posix.socket(wanted)
        let bound: SocketAddress
        let wake: (read: Int32, write: Int32)
        do {
            try Posix.setReuseAddress(fd)
            try Posix.bind(fd, wanted)
            try Posix.listen(fd, backlog: 1024, wanted)
            try Posix.setNonBlocking(fd)
            bound = try Posix.localAddress(fd)
            wake = try Posix.pipe()
        } catch {
            Posix.close(fd)
            throw error
        }
        shared.wakeFD.store(wake.write, ordering: .releasing)
        shared.listenerFD.store(fd, ordering: .releasing)
        let workers = WorkerPool(threads: configuration.workerThreads, name: "atlp-worker")
        let processor = RequestProcessor(
            handler: handler, maxFrame: configuration.maxFrame, maxSnapshotFrame: configuration.maxSnapshotFrame)
        let config = configuration
        let shared = self.shared
        let handler = self.handler
        let security = self.security
        let log = self.log
        let thread = Thread {
            let loop = ServerLoop(
                listener: fd, wakeRead: wake.read, wakeWrite: wake.write, configuration: config, processor: processor,
                handler: handler, workers: workers, shared: shared, security: security, log: log)
            loop.run()
            workers.stopAndWait()
            Posix.close(wake.read)
            shared.wakeFD.store(-1, ordering: .releasing)
            Posix.close(wake.write)
            shared.finished.signal()
        }
        thread.name = "atlp-io"
        thread.start()
        return bound
    }

    /// The bound address while running.
    public var address: SocketAddress? {
        if case .running(let a) = lifecycle.withLock({ $0 }) { return a }
        return nil
    }

    /// Stops gracefully: no new connections, no more reading; what was read is answered and
    /// flushed (within `stopGracePeriod`), then every connection is closed and the threads
    /// end. Returns once no handler call is running. Safe to call more than once.
    public func stop() {
        let wasRunning = lifecycle.withLock { s -> Bool in
            defer { s = .stopped }
            if case .running = s { return true }
            return false
        }
        guard wasRunning else { return }
        shared.stopRequested.store(true, ordering: .releasing)
        let fd = shared.wakeFD.load(ordering: .acquiring)
        if fd >= 0 { Posix.wake(fd) }
        shared.finished.wait()
        shared.finished.signal()  // later callers of stop() return at once
    }

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until
    /// SIGINT or SIGTERM, then stops gracefully and returns.
    public func run(onStart: (SocketAddress) -> Void = { _ in }) throws(PosixError) {
        // Listen first, so a port in use is the error reported even where the signals are
        // routed already (one route per process: another in-process command, e.g. in tests).
        let address = try start()
        let signals: SignalWaiter
        do {
            signals = try SignalWaiter([SIGINT, SIGTERM])
        } catch {
            stop()
            throw error
        }
        defer { signals.cancel() }
        onStart(address)
        signals.wait()
        stop()
    }

    /// The listening socket while running, -1 otherwise (for fault injection in tests).
    var listenerDescriptor: Int32 { shared.listenerFD.load(ordering: .acquiring) }

    /// A snapshot of the counters.
    public var statistics: ATLPServerStatistics { shared.statistics.withLock { $0 } }
}
