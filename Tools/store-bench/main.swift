// store-bench: durable events per second into each store, one run, release build
// (`swift run -c release store-bench`, `--quick` for a short run). Every configuration gets the
// same load: SENDERS threads appending batches of BATCH new events, each call returning once
// its batch is durable (what an ACK waits for: SQLite's ingest log, PostgreSQL's commit), full
// durability everywhere.
//   1. SQLite (the baseline): one SQLiteEventStore on a temporary file.
//   2. PostgreSQL, one collector: one PostgresEventStore (its pool, its group commit).
//   3. PostgreSQL, two collectors: two PostgresEventStore instances on the same database, the
//      senders split between them.
// The PostgreSQL server is started for the run (TestSupport's PostgresServer: initdb in a
// temporary directory, Unix socket, fsync on) and stopped at the end. The three are measured in
// ROUNDS rounds, in a rotated order each round (so none always runs first, on a cooler cache or
// an emptier WAL); the figures are each configuration's median, and every round's ratios are
// printed too, since one second of durable commits moves by tens of percent between runs.
import BenchmarkSupport
import EventModel
import EventStore
import Foundation
import PostgresStore
import SQLiteStore
import Synchronization
import TestSupport

let usage = """
    usage: store-bench [--quick]
    Durable events/s into SQLite (synchronous=FULL, the baseline), PostgreSQL with one collector and
    PostgreSQL with two collectors on one database; starts and stops its own PostgreSQL server
    (Debian's postgresql package, installed by Tools/setup.sh). Release build, one run of 5
    rounds (each configuration's median is reported).
      --quick   3 rounds of 10 batches per sender instead of 5 rounds of 50
    example: swift run -c release store-bench --quick
    """
ToolArguments("store-bench", usage: usage).read()
let quick = Benchmark.isQuick
let senders = 8
let batchSize = 100
let batchesPerSender = quick ? 10 : 50
let events = senders * batchSize * batchesPerSender
let rounds = Benchmark.rounds(quick: 3, full: 5)

/// A realistic event: a list-item click with page, path, viewId, session and two props.
func event(_ run: String, _ n: Int) -> JSONValue {
    .object(
        JSONObject([
            ("id", .string("\(run)-\(n)")), ("ts", .int(1_767_225_600_000 + Int64(n))), ("type", .string("list_item_click")),
            ("name", .string("CTRL_EVENT_HOME_OPEN_PRODUCT")), ("page", .string("HomeViewController")),
            ("path", .string("HomeViewController-UIView-UITableView-ProductCell&0-0-0-0:\(n % 20)")),
            ("viewId", .string("0123456789abcdef0123456789abcdef")), ("session", .string("s-\(n / 500)")),
            ("props", .object(JSONObject([("productId", .string("p-\(n % 97)")), ("price", .double(9.5))]))),
        ]))
}

/// Appends every sender's batches through `stores` (sender i uses store i % count); events/s.
func measure(_ run: String, _ stores: [any CollectorStore]) -> Double {
    let failures = Atomic<Int>(0)
    let done = DispatchGroup()
    let elapsed = Benchmark.wallTime {
        for s in 0..<senders {
            done.enter()
            let store = stores[s % stores.count]
            Thread {
                defer { done.leave() }
                for b in 0..<batchesPerSender {
                    let base = (s * batchesPerSender + b) * batchSize
                    let batch = EventBatch(appKey: "bench", events: (base..<base + batchSize).map { event(run, $0) })
                    do {
                        let outcome = try store.append(batch)
                        if outcome.stored != batchSize { failures.add(1, ordering: .relaxed) }
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }.start()
        }
        done.wait()
    }
    if failures.load(ordering: .relaxed) > 0 {
        Benchmark.complain("store-bench: \(run): \(failures.load(ordering: .relaxed)) batches failed")
        exit(1)
    }
    return Double(events) / Benchmark.seconds(elapsed)
}

do {
    let dir = Fixtures.temporaryDirectory("store-bench")
    defer { try? FileManager.default.removeItem(at: dir) }
    let sqlite = try SQLiteEventStore(path: dir.appendingPathComponent("bench.sqlite").path)
    let server = try PostgresServer()
    defer { server.stop() }
    let one = try PostgresEventStore(uri: try server.createDatabase())
    let twoURI = try server.createDatabase()
    let two = [try PostgresEventStore(uri: twoURI), try PostgresEventStore(uri: twoURI)]
    // Warm-up (connections, prepared statements, first pages), not counted.
    _ = try one.append(EventBatch(appKey: "warm", events: [event("warm", 0)]))
    for s in two { _ = try s.append(EventBatch(appKey: "warm", events: [event("warm", 1)])) }
    _ = try sqlite.append(EventBatch(appKey: "warm", events: [event("warm", 0)]))

    Benchmark.start(
        "store-bench: \(senders) senders × \(batchesPerSender) batches × \(batchSize) events = \(events) per configuration"
            + " and round, \(rounds) rounds, durable commits")
    let configurations: [(name: String, stores: [any CollectorStore])] = [("sqlite", [sqlite]), ("pg1", [one]), ("pg2", two)]
    var rates: [String: [Double]] = [:]
    for round in 0..<rounds {
        for k in 0..<configurations.count {
            let c = configurations[(k + round) % configurations.count]
            rates[c.name, default: []].append(measure("\(c.name)-r\(round)", c.stores))
        }
        let r = rates.mapValues { $0[round] }
        print(
            String(
                format: "  round %d: SQLite %6.0f, PG one %6.0f (%.3f of SQLite), PG two %6.0f (%.3f of one)", round + 1,
                r["sqlite"]!, r["pg1"]!, r["pg1"]! / r["sqlite"]!, r["pg2"]!, r["pg2"]! / r["pg1"]!))
    }
    func median(_ v: [Double]) -> Double { Benchmark.median(v) }
    let base = median(rates["sqlite"]!)
    let pg1 = median(rates["pg1"]!)
    let pg2 = median(rates["pg2"]!)
    func row(_ name: String, _ v: Double, _ ratio: String) {
        print(Benchmark.label(name, width: 44) + Benchmark.fixed(v, 0, width: 10) + "  " + ratio)
    }
    print(Benchmark.label("median of \(rounds) rounds", width: 44) + "  events/s  ratio")
    row("SQLite, synchronous=FULL (baseline)", base, "1.000")
    row("PostgreSQL, one collector", pg1, Benchmark.ratio(pg1, to: base, digits: 3) + " of SQLite (goal >= 0.7)")
    row("PostgreSQL, two collectors, one database", pg2, Benchmark.ratio(pg2, to: pg1, digits: 3) + " of one collector (goal >= 1.0)")
    sqlite.close()
    one.close()
    two.forEach { $0.close() }
} catch {
    Benchmark.complain("store-bench: \(error)")
    exit(1)
}
