import ATLPServer
import EventModel
import EventStore
import HTTPServer
import SystemCalls

/// The collector's parts as the services of one `ServiceGroup` (EmbeddedCollector.swift), in the
/// order they start: the store, the ATLP server, the studio. They stop in the reverse order, so
/// nothing reaches the store once it closes: the studio stops answering, the ATLP server answers
/// what it read (every `ACK` sent is durable in the store's journal), then the store stores what
/// its journal holds and closes.

/// The store, its background threads (storing, derived data) running since it opened, and the
/// rebuild of the rollups a migration or a prune left waiting, on a thread of its own while the
/// collector serves. Stopping closes the store: what its journal holds goes into `events`, the
/// threads end, and the rebuild ends with the store (what it had not replayed waits for the next
/// start; reports read the events meanwhile).
final class StoreService: BackgroundService {
    let serviceName = "store"
    let store: any CollectorStore
    private let rebuild = ServiceThread(threadName: "rollup-rebuild")
    private let log: (@Sendable (String) -> Void)?

    init(_ store: any CollectorStore, log: (@Sendable (String) -> Void)?) {
        self.store = store
        self.log = log
    }

    /// Starts the rebuild: it logs about ten lines per app, and stops quietly when the store closes.
    func start() {
        let store = store
        let log = log
        rebuild.start { _ in
            var lines = RollupProgressLines()
            do throws(StoreError) {
                try store.rebuildRollups { p in
                    if let line = lines.line(p) { log?(line) }
                }
            } catch {
                if error.code != .closed { log?("could not rebuild the report rollups (reports read the events meanwhile): \(LogText.escaped("\(error)"))") }
            }
        }
    }

    @discardableResult
    func stop(grace: Duration) -> Bool {
        rebuild.requestStop(grace: grace)
        store.close()
        return rebuild.waitUntilStopped(timeout: grace)
    }
}

/// A server of the collector (the ATLP/1 server, the studio's HTTP server): binding is its
/// start (an address in use is the group's start error); stopping answers what was read within
/// the server's own grace period (`stopGracePeriod`) and returns once no handler call runs.
final class ListeningService: BackgroundService {
    let serviceName: String
    private let listen: SocketAddress
    private let bind: @Sendable () throws(PosixError) -> SocketAddress
    private let close: @Sendable () -> Void

    convenience init(_ atlp: ATLPService, listen: SocketAddress) {
        self.init("ATLP server", listen: listen, bind: { () throws(PosixError) in try atlp.start() }, close: { atlp.stop() })
    }

    convenience init(_ studio: HTTPService, listen: SocketAddress) {
        self.init("studio", listen: listen, bind: { () throws(PosixError) in try studio.start() }, close: { studio.stop() })
    }

    private init(
        _ name: String, listen: SocketAddress, bind: @escaping @Sendable () throws(PosixError) -> SocketAddress,
        close: @escaping @Sendable () -> Void
    ) {
        serviceName = name
        self.listen = listen
        self.bind = bind
        self.close = close
    }

    func start() throws {
        do throws(PosixError) {
            _ = try bind()
        } catch {
            throw CollectorStartError(listen: listen, error)
        }
    }

    func stop(grace: Duration) -> Bool {
        close()
        return true
    }
}
