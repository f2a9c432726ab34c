import Dispatch
public import SecureChannel
import Synchronization
public import SystemCalls

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
    private let shared = HTTPShared()
    private let lifecycle = Mutex<Lifecycle>(.idle)

    private enum Lifecycle {
        case idle, running(SocketAddress), stopped
    }

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
        try lifecycle.withLock { (state) throws(PosixError) -> SocketAddress in
            switch state {
            case .running(let address): return address
            case .stopped: throw PosixError("start(): this HTTP server was stopped; create a new one", errno: EINVAL)
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
        let workers = ThreadPool(threads: configuration.workerThreads, name: "http-worker")
        let shared = self.shared
        let configuration = self.configuration
        let handler = self.handler
        let security = self.security
        Posix.startThread(name: "http-io") {
            let loop = HTTPLoop(
                listener: fd, wakeRead: wake.read, configuration: configuration, handler: handler, workers: workers,
                shared: shared, security: security)
            loop.run()
            workers.stopAndWait()
            Posix.close(wake.read)
            shared.wakeFD.store(-1, ordering: .releasing)
            Posix.close(wake.write)
            shared.finished.signal()
        }
        return bound
    }

    /// The bound address while running.
    public var address: SocketAddress? {
        if case .running(let a) = lifecycle.withLock({ $0 }) { return a }
        return nil
    }

    /// Stops gracefully: no new connections, no more requests read; what was read is answered
    /// and sent (within `stopGracePeriod`), then every connection is closed and the threads end.
    /// Returns once no handler call is running. Safe to call more than once.
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

    /// Runs as a service: starts, calls `onStart` with the bound address, blocks until SIGINT
    /// or SIGTERM, then stops gracefully and returns. (A process serving more than this server
    /// waits for the signals itself and calls `start()` and `stop()`.)
    public func run(onStart: (SocketAddress) -> Void = { _ in }) throws(PosixError) {
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

    /// A snapshot of the counters.
    public var statistics: HTTPServerStatistics { shared.statistics.withLock { $0 } }
}

/// State the I/O thread, the workers and the public API share; every member is Sendable by
/// itself (atomics, mutexes, a semaphore).
final class HTTPShared: Sendable {
    let stopRequested = Atomic<Bool>(false)
    let wakeFD = Atomic<Int32>(-1)
    let finished = DispatchSemaphore(value: 0)
    /// Responses the workers finished, for the I/O thread to send.
    let completions = Mutex<[Answered]>([])
    let statistics = Mutex(HTTPServerStatistics())
}
