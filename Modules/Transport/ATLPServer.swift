import Dispatch
import Foundation
import Synchronization

/// The server's settings; the defaults are the collector's.
public struct ATLPServerConfiguration: Sendable, Hashable {
    /// The address to listen on (numeric; `::1` for IPv6 loopback).
    public var host: String
    /// 0 picks a free port; `start()` returns it.
    public var port: UInt16
    /// Largest payload accepted, in bytes; announced in `WELCOME`.
    public var maxFrame: Int
    /// A connection with nothing to do and no bytes moved for this long is closed.
    public var idleTimeout: Duration
    /// Above this many open connections a new one gets `ERR too-many-connections` and is closed.
    public var maxConnections: Int
    /// Threads that run handler calls (they may block on a commit).
    public var workerThreads: Int
    /// How long `stop()` lets connections finish answering before closing them anyway.
    public var stopGracePeriod: Duration
    /// Requests read ahead per connection before reading from it pauses.
    public var maxPendingRequests: Int
    /// Unsent reply bytes per connection above which reading from it pauses.
    public var maxOutputBytes: Int
    /// Use epoll where available (Linux); false forces poll(2), whose cost grows with the
    /// number of open connections.
    public var useEpoll: Bool

    public init(
        host: String = "127.0.0.1", port: UInt16 = 7070, maxFrame: Int = 1 << 20, idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 4096, workerThreads: Int = 4, stopGracePeriod: Duration = .seconds(5),
        maxPendingRequests: Int = 16, maxOutputBytes: Int = 4 << 20, useEpoll: Bool = true
    ) {
        self.useEpoll = useEpoll
        self.host = host
        self.port = port
        self.maxFrame = maxFrame
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.workerThreads = workerThreads
        self.stopGracePeriod = stopGracePeriod
        self.maxPendingRequests = maxPendingRequests
        self.maxOutputBytes = maxOutputBytes
    }
}

/// Counters of a running server, for logs and tests.
public struct ATLPServerStatistics: Sendable, Hashable {
    public var open = 0
    public var accepted = 0
    /// Connections turned away because `maxConnections` were open.
    public var refused = 0
    /// Connections closed for being idle.
    public var idleClosed = 0
    public var framesReceived = 0
    /// ERR frames sent, by code.
    public var errors: [ATLPErrorCode: Int] = [:]
}

/// An ATLP/1 server: one I/O thread multiplexing non-blocking sockets with epoll (poll
/// where epoll is missing), and a small pool of worker threads for handler calls.
///
/// A slow or hostile client costs only its own buffers: writes never block the loop,
/// reading from a connection pauses when its replies or requests pile up, and every
/// limit (frame size, idle time, connection count) is enforced per connection.
/// Its threads run from `start()` until `stop()` (or the end of `run()`): call one of them.
public final class ATLPServer: Sendable {
    public let configuration: ATLPServerConfiguration
    private let handler: any ATLPHandler
    private let shared: ServerShared
    private let lifecycle = Mutex<Lifecycle>(.idle)

    private enum Lifecycle {
        case idle, running(SocketAddress), stopped
    }

    public init(configuration: ATLPServerConfiguration = ATLPServerConfiguration(), handler: any ATLPHandler) {
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
        let workers = WorkerPool(threads: configuration.workerThreads, name: "atlp-worker")
        let processor = RequestProcessor(handler: handler, maxFrame: configuration.maxFrame)
        let config = configuration
        let shared = self.shared
        let handler = self.handler
        let thread = Thread {
            let loop = ServerLoop(
                listener: fd, wakeRead: wake.read, wakeWrite: wake.write, configuration: config, processor: processor,
                handler: handler, workers: workers, shared: shared)
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
        let signals = try SignalWaiter([SIGINT, SIGTERM])
        defer { signals.cancel() }
        let address = try start()
        onStart(address)
        signals.wait()
        stop()
    }

    /// A snapshot of the counters.
    public var statistics: ATLPServerStatistics { shared.statistics.withLock { $0 } }
}

/// State the I/O thread, the workers and the public API share; every member is
/// Sendable by itself (atomics, mutexes, a semaphore).
final class ServerShared: Sendable {
    let stopRequested = Atomic<Bool>(false)
    let wakeFD = Atomic<Int32>(-1)
    let finished = DispatchSemaphore(value: 0)
    let completions = Mutex<[(id: UInt64, outcome: Outcome)]>([])
    let statistics = Mutex(ATLPServerStatistics())
}

/// Blocks until one of some signals arrives, without the default action of killing the
/// process (service-lifecycle's graceful shutdown, without the package). One at a time per process.
final class SignalWaiter {
    private let readFD: Int32
    private let previous: [(Int32, SignalHandler)]

    init(_ signals: [Int32]) throws(PosixError) {
        (readFD, previous) = try Posix.routeSignalsToPipe(signals)
    }

    /// Returns the signal that arrived.
    @discardableResult
    func wait() -> Int32 { Posix.awaitSignal(readFD) }

    /// Restores the previous signal actions.
    func cancel() { Posix.unrouteSignals(previous, readFD: readFD) }
}
