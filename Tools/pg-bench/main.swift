// pg-bench: the PostgreSQL store at scale, release build, one run. Starts its own PostgreSQL
// server (TestSupport's PostgresServer: initdb in a temporary directory, Unix socket, fsync on),
// first compares the ingest paths (PostgresIngest: the group insert, COPY straight into the
// tables): each stores the same realistic mix (ShopTraffic.ingestMix:
// 7 days, 2,000 devices, 400 signed in, sessions, 60 click paths) into a fresh database through
// `append` from 4 threads in batches of 500 (--ingest-threads, --ingest-batch), in rotating order each round, as a ratio to the
// group insert (median of --rounds rounds). Then it stores N seeded shop events (ShopTraffic,
// as analytics-bench) through `append` from 4 threads and measures, each a ratio to one
// `SELECT count(*) FROM events` in the same run (median of --rounds runs):
//   - building the rollups over every event (what the builder does behind the watermark);
//   - the whole `report` (CollectorReport: totals, events, pages, paths, trend, distinct actors,
//     dwell, next page, rage clicks), all time and 7 whole days, from the rollups;
//   - the same report with 10,000 events after the watermark (the tail read raw).
//
//   swift run -c release pg-bench [--quick] [--events N] [--ingest-events N] [--ingest-batch N] [--explain FILE]
//                                 [--ingest-threads N] [--ingest-only] [--rounds N]

import Analytics
import BenchmarkSupport
import CLibPQ
import Collector
import EventModel
import EventStore
import Foundation
import PostgresStore
import Synchronization
import SystemCalls
import TestSupport

let usage = """
    usage: pg-bench [--quick] [--events N] [--ingest-events N] [--ingest-batch N] [--ingest-threads N]
                    [--ingest-only] [--rounds N] [--explain FILE]
    The PostgreSQL store: the ingest paths (group insert, COPY) compared on the realistic mix
    (--ingest-events per path and round, default 200,000, --quick 50,000; from --ingest-threads
    threads, default 4, in batches of --ingest-batch events, default 500), then
    (unless --ingest-only) N seeded shop events (default 1,000,000; --quick 100,000): ingest,
    the rollups' build, and the whole report as a ratio to SELECT count(*) FROM events. Starts
    and stops its own PostgreSQL server (Debian's postgresql package, installed by Tools/setup.sh).
    --explain FILE: after the rounds, one more report with 10,000 events after the watermark on
    sessions that log (auto_explain, with ANALYZE) the plan of every statement over 20 ms; the
    server's log is written to FILE.
    example: swift run -c release pg-bench --quick --ingest-only
    """

struct Settings {
    var events = 1_000_000
    var ingestEvents = 200_000
    var ingestOnly = false
    var ingestBatch = 500
    var ingestThreads = 4
    var rounds = 3
    var explainLog: String?

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        let arguments = ToolArguments("pg-bench", usage: usage, arguments: args)
        let count = arguments.count(after:)
        arguments.read { option in
            switch option {
            case "--quick":
                s.events = 100_000
                s.ingestEvents = 50_000
            case "--ingest-events": s.ingestEvents = max(1_000, count(option))
            case "--ingest-only": s.ingestOnly = true
            case "--ingest-batch": s.ingestBatch = count(option)
            case "--ingest-threads": s.ingestThreads = count(option)
            case "--events": s.events = max(1_000, count(option))
            case "--rounds": s.rounds = count(option)
            case "--explain": s.explainLog = arguments.value(after: option, "a file path")
            default: return false
            }
            return true
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
    let firstFailure = Mutex<String?>(nil)
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
                        firstFailure.withLock { $0 = $0 ?? "\(error)" }
                    }
                }
            }.start()
        }
        done.wait()
    }
    if failures.load(ordering: .relaxed) > 0 {
        Benchmark.complain("pg-bench: \(failures.load(ordering: .relaxed)) batches failed, the first with: \(firstFailure.withLock { $0 ?? "" })")
        exit(1)
    }
    return Double(events) / Benchmark.seconds(elapsed)
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double { try Benchmark.seconds(Benchmark.wallTime(body)) * 1000 }

func median(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    Benchmark.median(try Benchmark.repeated(rounds) { try milliseconds(body) })
}

/// CPU seconds used so far by the PostgreSQL server (the postmaster, the children it reaped and
/// those still running: backends, WAL writer, checkpointer) and by this process, from
/// `/proc/<pid>/stat` (utime, stime, cutime, cstime in clock ticks of 1/100 s): under the load
/// of a shared machine, CPU per event compares the paths more steadily than wall time.
struct CPUTime {
    var server: Double
    var client: Double

    static func fields(_ pid: String) -> [Substring]? {
        guard let bytes = try? Posix.readFile("/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // After the command name in parentheses: state is field 3, ppid 4, utime 14 ... cstime 17.
        guard let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    static func ticks(_ f: [Substring], children: Bool) -> Double {
        let range = children ? 11...14 : 11...12
        return range.reduce(0) { $0 + (Double(f[$1]) ?? 0) } / 100
    }

    static func now(_ server: PostgresServer) -> CPUTime {
        let pidFile = server.directory.appendingPathComponent("data/postmaster.pid").path
        let postmaster = (try? Posix.readFile(pidFile)).map { String(decoding: $0, as: UTF8.self) }?
            .split(separator: "\n").first.map(String.init) ?? ""
        var total = fields(postmaster).map { ticks($0, children: true) } ?? 0
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for pid in pids where pid.first?.isNumber == true {
            if let f = fields(pid), f.count > 14, f[1] == postmaster { total += ticks(f, children: false) }
        }
        let me = fields("self").map { ticks($0, children: false) } ?? 0
        return CPUTime(server: total, client: me)
    }
}

/// The ingest paths side by side: each round stores the realistic mix into a fresh database per
/// path (order rotating), `threads` threads, batches of `batchSize`; prints each path's median events/s and CPU
/// per event (server, this process), the ratios to the group insert, and the load average at each run.
func compareIngest(_ server: PostgresServer, events: Int, batchSize: Int, threads: Int, rounds: Int) throws {
    var traffic = ShopTraffic.ingestMix(seed: 7)
    var batches: [[JSONValue]] = []
    traffic.batches(total: events, batchSize: batchSize) { batches.append($0) }
    let paths = PostgresIngest.allCases
    var rates: [PostgresIngest: [Double]] = [:]
    var serverCPU: [PostgresIngest: [Double]] = [:]
    var clientCPU: [PostgresIngest: [Double]] = [:]
    Benchmark.start("pg-bench: ingest paths, \(events) events of the realistic mix per run, \(threads) threads, batches of \(batchSize)")
    for round in 0..<rounds {
        for k in paths.indices {
            let path = paths[(k + round) % paths.count]
            let uri = try server.createDatabase()
            try PostgresEventStore(uri: uri).close()
            let store = try PostgresEventStore(uri: uri, options: StoreOptions(access: .existing), ingest: path)
            Thread.sleep(forTimeInterval: 0.3)  // The setup's backends exit and are reaped.
            let before = CPUTime.now(server)
            let rate = ingest(store, batches, threads: threads)
            store.close()
            Thread.sleep(forTimeInterval: 0.3)
            let after = CPUTime.now(server)
            let stored = Connection(uri).value("SELECT count(*) FROM events")
            guard Int(stored) == events else {
                Benchmark.complain("pg-bench: \(path) stored \(stored) of \(events) events")
                exit(1)
            }
            let serverMicros = (after.server - before.server) / Double(events) * 1e6
            let clientMicros = (after.client - before.client) / Double(events) * 1e6
            rates[path, default: []].append(rate)
            serverCPU[path, default: []].append(serverMicros)
            clientCPU[path, default: []].append(clientMicros)
            print(
                "  round \(round + 1) \(Benchmark.label("\(path)", width: 12)) \(Int(rate)) events/s, CPU per event: server "
                    + String(format: "%.1f µs, client %.1f µs", serverMicros, clientMicros) + "  load \(Benchmark.loadAverage())")
        }
    }
    let base = Benchmark.median(rates[.groupInsert] ?? [1])
    let baseCPU = Benchmark.median(serverCPU[.groupInsert] ?? [1])
    for path in paths {
        let m = Benchmark.median(rates[path] ?? [0])
        let cpu = Benchmark.median(serverCPU[path] ?? [0])
        print(
            Benchmark.label("ingest, \(path) (median of \(rounds))", width: 40)
                + String(format: "%8.0f events/s %6.3f×   server CPU %6.1f µs/event %6.3f×   client CPU %5.1f µs/event", m, m / base, cpu, cpu / baseCPU,
                         Benchmark.median(clientCPU[path] ?? [0])))
    }
}

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
do {
    let server = try PostgresServer()
    defer { server.stop() }
    try compareIngest(
        server, events: settings.ingestEvents, batchSize: settings.ingestBatch, threads: settings.ingestThreads, rounds: settings.rounds)
    if settings.ingestOnly { exit(0) }
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
    if let file = settings.explainLog {
        // New sessions of this database load auto_explain; the store below opens only new ones.
        let name = db.value("SELECT current_database()")
        for setting in ["session_preload_libraries = 'auto_explain'", "auto_explain.log_min_duration = '20ms'", "auto_explain.log_analyze = on"] {
            db.value("ALTER DATABASE \(name) SET \(setting)")
        }
        let explained = try PostgresEventStore(uri: uri, options: StoreOptions(access: .existing))
        let time = try milliseconds { _ = try CollectorReport(store: explained, filter: all) }
        explained.close()
        do {
            try server.log.write(toFile: file, atomically: true, encoding: .utf8)
            print("the report once more, its plans logged: \(String(format: "%.1f", time)) ms; the server's log in \(file)")
        } catch {
            Benchmark.complain("pg-bench: cannot write \(file): \(error)")
        }
    }
    let scanned = try milliseconds { _ = try store.scannedActivity(all) }
    func line(_ name: String, _ ms: Double) {
        print(Benchmark.label(name, width: 52) + String(format: "%10.1f ms  %7.2f× count(*)", ms, ms / countTime))
    }
    print("median of \(settings.rounds) rounds")
    line("SELECT count(*) FROM events (baseline)", countTime)
    line("building the rollups over every event", build)
    line("report (whole CollectorReport), all time", reportTime)
    line("report, 7 whole days", weekTime)
    line("report, all time, 10,000 events after the watermark", tailTime)
    line("the activity by a scan of every event (before)", scanned)
    print("sanity: \(report?.totals.events ?? 0) events, \(report?.activity.days.count ?? 0) days")
} catch {
    Benchmark.complain("pg-bench: \(error)")
    exit(1)
}
