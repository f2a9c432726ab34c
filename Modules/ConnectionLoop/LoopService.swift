package import SecureChannel
import Synchronization
package import SystemCalls

/// A server's life around its `ConnectionLoop`: binds and listens, starts the I/O thread and the
/// workers, stops gracefully, or runs until SIGINT/SIGTERM. The ATLP and HTTP services wrap one.
package final class LoopService<P: ConnectionProtocol>: Sendable {
    /// What the loop, its workers and the public API share.
    package let shared: LoopShared<P.Answer, P.Statistics>
    /// Names the threads (`<name>-io`, `<name>-worker-N`) and, in errors, the server.
    private let name: String
    private let what: String
    private let lifecycle = Mutex<Lifecycle>(.idle)
    /// Runs the loop (`<name>-io`), then stops the workers and closes the wakeup pipe.
    private let io: ServiceThread

    private enum Lifecycle {
        case idle, running(SocketAddress), stopped
    }

    /// `name` prefixes the threads' names; `what` names the server in errors ("server", "HTTP server").
    package init(name: String, what: String, statistics: P.Statistics) {
        self.name = name
        self.what = what
        self.shared = LoopShared(statistics: statistics)
        io = ServiceThread(threadName: "\(name)-io")
    }

    /// Binds `host`:`port`, listens, and starts `workerThreads` workers and the I/O thread, which
    /// runs a `ConnectionLoop` with `settings` and the protocol `makeLogic` makes there (with
    /// `security`, every connection speaks through a channel made for it), then stops the workers.
    /// Returns the bound address (the real port for port 0); while running, returns it again.
    package func start(
        host: String, port: UInt16, workerThreads: Int, settings: ConnectionLoopSettings, security: SecureChannelFactory?,
        makeLogic: @escaping @Sendable () -> P
    ) throws(PosixError) -> SocketAddress {
        // Under the lock from check to "running", so concurrent starts bind once.
        try lifecycle.withLock { (state) throws(PosixError) -> SocketAddress in
            switch state {
            case .running(let address): return address
            case .stopped: throw PosixError("start(): this \(what) was stopped; create a new one", errno: EINVAL)
            case .idle: break
            }
            let bound = try launch(host: host, port: port, workerThreads: workerThreads) { listener, wakeRead, workers in
                ConnectionLoop(
                    listener: listener, wakeRead: wakeRead, logic: makeLogic(), settings: settings, workers: workers,
                    shared: self.shared, security: security
                ).run()
            }
            state = .running(bound)
            return bound
        }
    }

    private func launch(
        host: String, port: UInt16, workerThreads: Int,
        serve: @escaping @Sendable (_ listener: Int32, _ wakeRead: Int32, _ workers: ThreadPool) -> Void
    ) throws(PosixError) -> SocketAddress {
        let wanted = SocketAddress(host: host, port: port)
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
        let workers = ThreadPool(threads: workerThreads, name: "\(name)-worker")
        let shared = self.shared
        io.start { _ in
            // The loop ends on `stopRequested` (the wakeup pipe wakes it), not on the thread's stop.
            serve(fd, wake.read, workers)
            workers.stopAndWait()
            Posix.close(wake.read)
            shared.wakeFD.store(-1, ordering: .releasing)
            Posix.close(wake.write)
        }
        return bound
    }

    /// The bound address while running.
    package var address: SocketAddress? {
        if case .running(let a) = lifecycle.withLock({ $0 }) { return a }
        return nil
    }

    /// Stops gracefully: no new connections, no more reading; what was read is answered and sent
    /// (within the loop's `stopGracePeriod`), then every connection is closed and the threads end.
    /// Returns once no worker job is running. Safe to call more than once.
    package func stop() {
        let wasRunning = lifecycle.withLock { s -> Bool in
            defer { s = .stopped }
            if case .running = s { return true }
            return false
        }
        guard wasRunning else { return }
        shared.stopRequested.store(true, ordering: .releasing)
        let fd = shared.wakeFD.load(ordering: .acquiring)
        if fd >= 0 { Posix.wake(fd) }
        // Bounded by the loop's own `stopGracePeriod`.
        io.waitUntilStopped()
    }

    /// Runs as a service: `start` (listening first, so a port in use is the error reported even
    /// where the signals are routed already), calls `onStart` with the bound address, blocks until
    /// SIGINT or SIGTERM, then stops gracefully and returns.
    package func run(start: () throws(PosixError) -> SocketAddress, onStart: (SocketAddress) -> Void) throws(PosixError) {
        let address = try start()
        defer { stop() }
        try SignalWaiter.waitForTermination { onStart(address) }
    }
}
