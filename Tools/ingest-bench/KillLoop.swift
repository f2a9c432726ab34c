import ATLPClient
import ATLPWire
import BenchmarkSupport
import EventModel
import Foundation
import Synchronization
import SystemCalls
import TestSupport

// `--kill-loop N`: the real `serve` (a binary, `--collector PATH`) killed with SIGKILL N times at
// random moments (100–700 ms after each start: while senders send the load over ATLP, and after,
// while it stores the journal and flushes the derived data), each resending what it has no `ACK` for
// once a new `serve` listens on the same port; then every acknowledged event must be in `events`
// once, and the derived data (the rollups, once the last collector has applied them) must count
// each once. On SQLite (a database in a temporary directory) or, with `--postgres`, on a
// PostgreSQL server the bench starts (TestSupport's `PostgresServer`: `initdb` in a temporary
// directory, a Unix socket, fsync on), where `serve` writes `events` in each group's transaction
// and its builder thread the rollups (`agg_*`, behind `agg_state.watermark`). Bounded: each kill
// waits at most 10 s for the process to go, each sender at most 300 s in all.

/// `serve` on `listen` with the database `db`; its process and port, from its first line.
func startServe(_ binary: String, db: String, listen: String) -> (process: ChildProgram, port: UInt16) {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
        let output = Pipe()
        let process: ChildProgram
        do {
            process = try ChildProgram(
                binary, arguments: ["serve", "--listen", listen, "--db", db],
                standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor), standardError: .discarded)
            try output.fileHandleForWriting.close()
        } catch {
            fail("cannot start \(binary): \(error); give --collector the path of a built autotrack-collector")
        }
        var line: [UInt8] = []
        while let byte = try? output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix("listening on "), let port = text.split(separator: ":").last.flatMap({ UInt16($0) }) { return (process, port) }
        process.waitForExit()
        // The port of the collector just killed may still be taken for a moment.
        if ContinuousClock.now > deadline { fail("\(binary) serve did not start within 10 s (first line: '\(text)')") }
        Posix.sleep(.milliseconds(50))
    }
}

/// The `sqlite3` program's output lines for `sql` on `db` (the rollups files attached as
/// docs/schema.md says).
func sqlite3(_ db: String, _ sql: String) -> [String] {
    let arguments = [
        "sqlite3", "-cmd", "ATTACH '\(db)-rollups' AS rollups", "-cmd", "ATTACH '\(db)-rollups-pages' AS rollup_pages", db, sql,
    ]
    do {
        return try runProgram("/usr/bin/env", arguments, timeout: 300).output.split(separator: "\n").map(String.init)
    } catch {
        fail("cannot run sqlite3: \(error); Tools/setup.sh installs it")
    }
}

/// The database a kill loop's collectors share, read back as a person would: `sqlite3` or `psql`.
enum KillLoopDatabase {
    /// An SQLite database (its path) in a temporary directory.
    case sqlite(String)
    /// A fresh database (its URI) on a PostgreSQL server the bench started.
    case postgres(PostgresServer, String)

    /// What `serve --db` takes.
    var argument: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(_, let uri): uri
        }
    }

    /// The store, and the program a person reads it with.
    var names: (store: String, reader: String) {
        switch self {
        case .sqlite: ("SQLite", "sqlite3")
        case .postgres: ("PostgreSQL", "psql")
        }
    }

    /// `sql`'s output lines (one value per line).
    func query(_ sql: String) -> [String] {
        switch self {
        case .sqlite(let path): return sqlite3(path, sql)
        case .postgres(let server, let uri):
            do {
                return try server.psql(uri: uri, sql)
            } catch {
                fail("cannot query PostgreSQL with psql: \(error)")
            }
        }
    }

    /// True once the derived data holds every stored event (both files' watermarks, or
    /// `agg_state.watermark`, at or past the last `seq`).
    var derivedDataCaughtUp: Bool {
        switch self {
        case .sqlite:
            query("SELECT MIN((SELECT seq FROM rollup_watermark), (SELECT seq FROM rollup_pages_watermark)) >= (SELECT MAX(seq) FROM events)")
                == ["1"]
        case .postgres:
            query("SELECT (SELECT watermark FROM agg_state) >= (SELECT MAX(seq) FROM events)") == ["t"]
        }
    }

    /// The events the derived data counts, and where.
    var derivedEvents: (count: [String], source: String) {
        switch self {
        case .sqlite: (query("SELECT SUM(events) FROM rollup_events"), "SUM(rollup_events.events)")
        case .postgres: (query("SELECT SUM(events) FROM agg_events"), "SUM(agg_events.events)")
        }
    }
}

func killLoop(_ binary: String, _ perConnection: [[[JSONValue]]], total: Int, kills: Int, window: Int, postgres: Bool) {
    let dir = temporaryDirectory("kill-loop")
    defer { try? FileManager.default.removeItem(at: dir) }
    let database: KillLoopDatabase
    if postgres {
        do {
            let server = try PostgresServer()
            database = .postgres(server, try server.createDatabase())
        } catch {
            fail("cannot start a PostgreSQL server for --postgres: \(error); Tools/setup.sh installs PostgreSQL")
        }
    } else {
        database = .sqlite(dir.appendingPathComponent("events.sqlite").path)
    }
    defer { if case .postgres(let server, _) = database { server.stop() } }
    let db = database.argument
    var serve = startServe(binary, db: db, listen: "127.0.0.1:0")
    let address = SocketAddress(host: "127.0.0.1", port: serve.port)
    // Per connection: how many of its batches have their ACK (they come in order).
    let acknowledged = Mutex<[Int]>(Array(repeating: 0, count: perConnection.count))
    let wrong = Mutex<[String]>([])
    let sendersDone = DispatchGroup()
    let start = ContinuousClock.now
    for c in perConnection.indices {
        sendersDone.enter()
        Thread {
            defer { sendersDone.leave() }
            let batches = perConnection[c]
            let deadline = ContinuousClock.now + .seconds(300)
            while acknowledged.withLock({ $0[c] }) < batches.count, ContinuousClock.now < deadline {
                let base = acknowledged.withLock { $0[c] }
                do {
                    let connection = try ATLPConnection(to: address, hello: Hello(appKey: "bench", appVersion: "1.0.0"), timeout: .seconds(10))
                    defer { connection.close() }
                    try connection.sendEvents(
                        window: window,
                        next: { n in
                            base + n < batches.count ? EventsRequest(batch: .string("k-c\(c)-b\(base + n)"), events: batches[base + n]) : nil
                        },
                        acknowledged: { n, ack in
                            // A resent batch whose first ACK was lost counts as duplicates.
                            if ack.stored + ack.duplicates != batches[base + n].count { wrong.withLock { $0.append("batch \(base + n): \(ack)") } }
                            acknowledged.withLock { $0[c] += 1 }
                        })
                } catch {
                    Posix.sleep(.milliseconds(20))  // killed: again once the next collector listens
                }
            }
        }.start()
    }
    var killed = 0
    var generator = SystemRandomNumberGenerator()
    while killed < kills {
        // While the senders send, and after (the background store, the rollups' flushes).
        Posix.sleep(.milliseconds(Int.random(in: 100...700, using: &generator)))
        serve.process.send(SIGKILL)
        serve.process.waitForExit()
        killed += 1
        serve = startServe(binary, db: db, listen: "127.0.0.1:\(address.port)")
    }
    sendersDone.wait()
    let elapsed = ContinuousClock.now - start
    let prefixes = acknowledged.withLock { $0 }
    var sent = 0
    for (c, n) in prefixes.enumerated() {
        for batch in perConnection[c].prefix(n) { sent += batch.count }
    }
    if let w = wrong.withLock({ $0.first }) { fail("an ACK did not count its batch: \(w)") }
    guard sent == total else { fail("the senders got ACKs for \(sent) of \(total) events within 300 s") }
    // Every acknowledged event once in `events`, as a person counts it, after a clean stop.
    serve.process.terminate()
    serve.process.waitForExit()
    let counted = database.query("SELECT COUNT(*) || '|' || COUNT(DISTINCT app_key || '/' || id) FROM events")
    // The derived data: a collector once more, until the watermarks reach the last event.
    serve = startServe(binary, db: db, listen: "127.0.0.1:0")
    let applied = ContinuousClock.now + .seconds(300)
    while !database.derivedDataCaughtUp, ContinuousClock.now < applied {
        Posix.sleep(.milliseconds(200))
    }
    serve.process.terminate()
    serve.process.waitForExit()
    let (rolledUp, source) = database.derivedEvents
    let (store, reader) = database.names
    print("kill loop (\(store)): \(killed) SIGKILLs of serve in \(Benchmark.fixed(Benchmark.seconds(elapsed), 1)) s; \(sent) events acknowledged")
    print("  in events (\(reader), count | distinct): \(counted.joined()); in the rollups (\(source)): \(rolledUp.joined())")
    guard counted == ["\(total)|\(total)"], rolledUp == ["\(total)"] else {
        fail("acknowledged events lost or counted twice: events \(counted), rollups \(rolledUp), acknowledged \(total)")
    }
    print("  nothing acknowledged lost or counted twice")
}
