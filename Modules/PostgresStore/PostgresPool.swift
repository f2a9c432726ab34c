import StoreSQL
import Synchronization

/// The connections of one collector: reused while healthy, replaced when broken, opened on demand.
///
/// A caller borrows a connection for one unit of work (a group commit, a report query) and
/// gives it back; a connection that broke (server restarted or unreachable) is closed instead,
/// and the next borrow connects again, so the store reconnects by itself.
final class PostgresPool: Sendable {
    let uri: String
    /// Connections kept open while idle; more are opened when callers need them at once.
    let maxIdle: Int
    /// Statements every new connection runs first (`SET synchronous_commit = off`...).
    let setup: [String]
    // Sendable by hand: PostgresConnection is a class used by one thread at a time. An idle
    // connection is only reachable through this Mutex, and a borrowed one only by its borrower.
    private let idle = Mutex<[PostgresConnection]>([])
    private let closed = Atomic<Bool>(false)

    init(uri: String, maxIdle: Int = 8, setup: [String] = []) {
        self.uri = uri
        self.maxIdle = maxIdle
        self.setup = setup
    }

    /// Runs `body` on a pooled connection. When the connection turns out broken and `body` may be
    /// repeated (`retryOnStale`), it is repeated once on a fresh connection: a connection that sat
    /// idle across a server restart fails its first statement without anything having been done.
    func withConnection<T>(
        retryOnStale: Bool = true, _ body: (PostgresConnection) throws(PostgresError) -> T
    ) throws(PostgresError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            let (connection, reused) = try borrow()
            do throws(PostgresError) {
                let value = try body(connection)
                giveBack(connection)
                return value
            } catch {
                if connection.isUsable { giveBack(connection) }
                // A reused connection that broke: try once more with a new one.
                if retryOnStale, reused, attempt == 1, error.code == .connection || error.isTransient { continue }
                throw error
            }
        }
    }

    /// Closes every idle connection; later borrows fail. Borrowed ones close when given back.
    func close() {
        closed.store(true, ordering: .sequentiallyConsistent)
        let connections = idle.withLock { i -> [PostgresConnection] in
            defer { i = [] }
            return i
        }
        _ = connections  // Released here, outside the lock: deinit closes each.
    }

    private func borrow() throws(PostgresError) -> (PostgresConnection, reused: Bool) {
        if closed.load(ordering: .sequentiallyConsistent) {
            throw PostgresError(code: .usage, message: "the PostgreSQL store was closed", statement: "")
        }
        if let c = idle.withLock({ $0.popLast() }) { return (c, true) }
        let c = try PostgresConnection(uri: uri)
        for statement in setup { try c.execute(SQLQuery(raw: statement)) }
        return (c, false)
    }

    private func giveBack(_ connection: PostgresConnection) {
        guard connection.isUsable, !closed.load(ordering: .sequentiallyConsistent) else { return }
        let dropped: PostgresConnection? = idle.withLock { i in
            if i.count >= maxIdle { return connection }
            i.append(connection)
            return nil
        }
        _ = dropped
    }
}
