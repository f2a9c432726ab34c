// pg-bench: the PostgreSQL store at scale, release build, one run. Starts its own PostgreSQL
// server (TestSupport's PostgresServer: initdb in a temporary directory, Unix socket, fsync on),
// stores N seeded shop events (ShopTraffic, as analytics-bench) through `append` from 4 threads,
// then measures, each a ratio to one `SELECT count(*) FROM events` in the same run (median of
// --rounds runs):
//   - building the aggregates over every event (what the builder does behind the watermark);
//   - the whole `report` (CollectorReport: totals, events, pages, paths, trend, distinct actors,
//     dwell, next page, rage clicks), all time and 7 whole days, from the aggregates;
//   - the same report with 10,000 events after the watermark (the tail read raw).
//
//   swift run -c release pg-bench [--quick] [--events N] [--rounds N]

import Analytics
import BenchmarkSupport
import CLibPQ
import Collector
import EventModel
import EventStore
import Foundation
import PostgresStore
import Synchronization
import TestSupport

let usage = """
    usage: pg-bench [--quick] [--events N] [--rounds N]
    The PostgreSQL store over N seeded shop events (default 1,000,000; --quick 100,000): ingest,
    the aggregates' build, and the whole report as a ratio to SELECT count(*) FROM events. Starts
    and stops its own PostgreSQL server (Debian's postgresql package, installed by Tools/setup.sh).
    example: swift run -c release pg-bench --quick
    """

struct Settings {
    var events = 1_000_000
    var rounds = 3

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        var rest = args.makeIterator()
        func count(after option: String) -> Int {
            guard let text = rest.next(), let n = Int(text), n > 0 else {
                Benchmark.complain("pg-bench: \(option) needs a positive count; see --help")
                exit(2)
            }
            return n
        }
        while let option = rest.next() {
            switch option {
            case "--quick": s.events = 100_000
            case "--events": s.events = max(1_000, count(after: option))
            case "--rounds": s.rounds = count(after: option)
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                Benchmark.complain("pg-bench: unknown option \(option); see --help")
                exit(2)
            }
        }
        return s
    }
}

/// One libpq connection for the baseline and the bench's own statements.
final class Connection {
    let handle: OpaquePointer

    init(_ uri: String) {
        guard let c = PQconnectdb(uri), PQstatus(c) == CONNECTION_OK else {
            Benchmark.complain("pg-bench: cannot connect to \(uri)")
            exit(1)
        }
        handle = c
    }

    deinit { PQfinish(handle) }

    /// The first value of `sql`'s first row, as text.
    @discardableResult
    func value(_ sql: String) -> String {
        guard let r = PQexec(handle, sql) else { fatalError("pg-bench: no result for \(sql)") }
        defer { PQclear(r) }
        let status = PQresultStatus(r)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            fatalError("pg-bench: \(sql): \(String(cString: PQresultErrorMessage(r)))")
        }
        return PQntuples(r) > 0 ? String(cString: PQgetvalue(r, 0, 0)) : ""
    }
}

/// Stores `batches` through `store` from `threads` threads; events/s.
func ingest(_ store: PostgresEventStore, _ batches: [[JSONValue]], threads: Int) -> Double {
    let next = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let done = DispatchGroup()
    let events = batches.reduce(0) { $0 + $1.count }
    let elapsed = Benchmark.wallTime {
        for _ in 0..<threads {
            done.enter()
            Thread {
                defer { done.leave() }
                while true {
                    let i = next.add(1, ordering: .relaxed).oldValue
                    guard i < batches.count else { return }
                    do {
                        _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: batches[i]))
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }.start()
        }
        done.wait()
    }
    if failures.load(ordering: .relaxed) > 0 {
        Benchmark.complain("pg-bench: \(failures.load(ordering: .relaxed)) batches failed")
        exit(1)
    }
    return Double(events) / Benchmark.seconds(elapsed)
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double { try Benchmark.seconds(Benchmark.wallTime(body)) * 1000 }

func median(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    Benchmark.median(try Benchmark.repeated(rounds) { try milliseconds(body) })
}

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
do {
    let server = try PostgresServer()
    defer { server.stop() }
    let uri = try server.createDatabase()
    try PostgresEventStore(uri: uri).close()
    // `.existing`: no builder thread, so the bench times the build itself.
    let store = try PostgresEventStore(uri: uri, options: StoreOptions(access: .existing))
    defer { store.close() }
    var traffic = ShopTraffic(users: 20_000, days: 30)
    var batches: [[JSONValue]] = []
    traffic.batches(total: settings.events, batchSize: 2_000) { batches.append($0) }
    let tail = batches.suffix(5)
    let rate = ingest(store, Array(batches.dropLast(5)), threads: 4)
    let db = Connection(uri)
    db.value("VACUUM ANALYZE")
    Benchmark.start("pg-bench: \(db.value("SELECT count(*) FROM events")) events (\(Int(rate)) events/s stored, 4 threads)")
    let build = try milliseconds { try store.rebuildRollups { _ in } }
    db.value("VACUUM ANALYZE")
    let countTime = median(settings.rounds) { db.value("SELECT count(*) FROM events") }
    let all = EventFilter(appKey: "shop")
    let week = EventFilter(appKey: "shop", since: traffic.start, until: traffic.start + 7 * UTCDay.milliseconds)
    var report: CollectorReport?
    let reportTime = try median(settings.rounds) { report = try CollectorReport(store: store, filter: all) }
    let weekTime = try median(settings.rounds) { _ = try CollectorReport(store: store, filter: week) }
    _ = ingest(store, Array(tail), threads: 1)
    let tailTime = try median(settings.rounds) { _ = try CollectorReport(store: store, filter: all) }
    let scanned = try milliseconds { _ = try store.scannedActivity(all) }
    func line(_ name: String, _ ms: Double) {
        print(Benchmark.label(name, width: 52) + String(format: "%10.1f ms  %7.2f× count(*)", ms, ms / countTime))
    }
    print("median of \(settings.rounds) rounds")
    line("SELECT count(*) FROM events (baseline)", countTime)
    line("building the aggregates over every event", build)
    line("report (whole CollectorReport), all time", reportTime)
    line("report, 7 whole days", weekTime)
    line("report, all time, 10,000 events after the watermark", tailTime)
    line("the activity by a scan of every event (before)", scanned)
    print("sanity: \(report?.totals.events ?? 0) events, \(report?.activity.days.count ?? 0) days")
} catch {
    Benchmark.complain("pg-bench: \(error)")
    exit(1)
}
