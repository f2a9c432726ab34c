// analytics-bench: the analytics over 1,000,000 stored events (seeded shop traffic), each as a
// ratio to one full `SELECT count(*) FROM events` in the same run: the whole `report`
// computation (all time, and 7 whole days), a 3-step `funnel` and a 7-day `retention`. Also the
// narrow scan alone, and a count that reads every row (`NOT INDEXED`), for scale. Median of
// --rounds runs each. The events are stored through `append`; the rollup tables (schema 5) follow
// behind a watermark (schema 7) and are brought up to the last event before the rounds (timed); a
// file from an older build is migrated and its rollups rebuilt first (timed).
// Definitions (module Definitions): a rule's counts (all time, 7 whole days, 7 days from 01:00:
// whole hours of two part-days), a heatmap of five paths, and the funnel with its last step as a
// rule (rule:ID, the kinds the rule covers read from the rollups) beside the same funnel by kind.
// Last, the disk cost of the derived tables: the size of the rollups files (`PATH-rollups*`) against
// the events file (each with its write-ahead log, after the store is closed), in bytes per event.
//
//   swift run -c release analytics-bench [--quick] [--events N] [--rounds N] [--db FILE] [--skip-report] [--skip-scan]

import Analytics
import BenchmarkSupport
import CSQLite
import Collector
import Definitions
import KVCConfig
import ViewIdentity
import EventStore
import Foundation
import SQLiteStore
import TestSupport

struct Settings {
    var events = 1_000_000
    var rounds = 3
    var database: String?
    /// Leaves out the report (by far the longest), e.g. to profile funnel and retention.
    var skipReport = false
    /// Leaves out the narrow scan of every event (a second long one), e.g. to profile funnel and retention.
    var skipScan = false

    static let usage = Benchmark.usage(
        "analytics-bench",
        measures: """
            The report, a funnel, retention and rule counts over N stored shop events (SQLite), each as a
            ratio to one SELECT count(*) FROM events in the same run (median of the rounds).
            """,
        options: [
            ("--events N", "events stored (default 1,000,000)"), ("--rounds N", "rounds, each figure their median (default 3)"),
            ("--db FILE", "the database (default: a file in the temporary directory, kept for the next run)"),
            ("--skip-report", "leave out the report (the longest)"), ("--skip-scan", "leave out the narrow scan of every event"),
        ],
        quick: "100,000 events instead of 1,000,000", example: "swift run -c release analytics-bench --quick")

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        let arguments = ToolArguments("analytics-bench", usage: usage, arguments: args)
        arguments.read { option in
            switch option {
            case "--quick": s.events = 100_000
            case "--events": s.events = arguments.count(after: option)
            case "--rounds": s.rounds = arguments.count(after: option)
            case "--db": s.database = arguments.value(after: option, "a file path")
            case "--skip-report": s.skipReport = true
            case "--skip-scan": s.skipScan = true
            default: return false
            }
            return true
        }
        return s
    }
}

/// Wall-clock and this thread's CPU seconds of one piece of work: on a loaded machine the wall
/// clock also counts the time other processes held the cores, the CPU time does not.
struct Timing {
    var wall: Double
    var cpu: Double
}

func seconds(_ body: () throws -> Void) rethrows -> Double { try timing(body).wall }

func timing(_ body: () throws -> Void) rethrows -> Timing {
    let cpu = Benchmark.threadCPUTime()
    let wall = try Benchmark.wallTime(body)
    return Timing(wall: Benchmark.seconds(wall), cpu: Benchmark.seconds(Benchmark.threadCPUTime() - cpu))
}

/// The median wall time and the median CPU time of `rounds` runs.
func median(_ rounds: Int, _ body: () throws -> Void) rethrows -> Timing {
    let times = try Benchmark.repeated(rounds) { try timing(body) }
    return Timing(wall: Benchmark.median(times.map(\.wall)), cpu: Benchmark.median(times.map(\.cpu)))
}

/// `sql` (one integer result) on a read-only connection of its own.
func count(_ path: String, _ sql: String) -> Int64 {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fatalError("cannot open \(path)") }
    defer { sqlite3_close(db) }
    var stmt: OpaquePointer?
    guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(db))) }
    defer { sqlite3_finalize(stmt) }
    guard sqlite3_step(stmt) == SQLITE_ROW else { fatalError(String(cString: sqlite3_errmsg(db))) }
    return sqlite3_column_int64(stmt, 0)
}

/// Opens the database at `path`, creating and filling it with `settings.events` shop events
/// when there is none, with its rollups brought up to the last stored event.
func openStore(_ path: String, _ settings: Settings) throws -> SQLiteEventStore {
    let existing = FileManager.default.fileExists(atPath: path)
    let store = try SQLiteEventStore(path: path, options: StoreOptions(access: .create, durability: .normal))
    // An older database (schema 4) was migrated by the open; its rollups are rebuilt here, as a
    // collector does on a thread of its own when it starts.
    var replayed = 0
    let rebuilding = try seconds { try store.rebuildRollups { replayed = $0.replayed } }
    if replayed > 0 { print("rebuilt the rollups of \(replayed) events in \(String(format: "%.1f", rebuilding)) s") }
    if !existing {
        var traffic = ShopTraffic(users: 20_000, days: 30)
        let loading = try seconds {
            try traffic.batches(total: settings.events, batchSize: 2_000) { batch in
                _ = try store.append(EventBatch(appKey: "shop", appVersion: "1.0", events: batch))
            }
        }
        print("stored \(settings.events) events in \(String(format: "%.1f", loading)) s (\(path))")
    }
    // The rollups follow the appends behind a watermark (a worker thread); the first report
    // brings them up to the last event itself: timed here, once, not in the rounds.
    let catchingUp = try seconds { _ = try store.totals(.all) }
    print("rollups brought up to the last stored event in \(String(format: "%.1f", catchingUp)) s")
    return store
}

/// The timed rows in the order they are printed, and the results the closing lines show.
struct Measurements {
    var rows: [(name: String, timing: Timing)] = []
    var report: CollectorReport?
    var funnel: FunnelResult?
    var retention: RetentionResult?
    var preview: DefinitionCounts?
    var ruleFunnel: FunnelResult?

    mutating func time(_ name: String, _ rounds: Int, _ body: () throws -> Void) rethrows {
        rows.append((name, try median(rounds, body)))
    }
}

let week = EventFilter(appKey: "shop", since: 1_793_491_200_000, until: 1_793_491_200_000 + 7 * 86_400_000)
let funnelDefinition = FunnelDefinition(
    steps: [
        EventKind(type: "page_enter", name: "HomeViewController"), EventKind(type: "page_enter", name: "ProductDetailViewController"),
        EventKind(type: "click", name: "PAY"),
    ])

/// The baseline counts, the scan and the reports.
func measureCountsAndReports(_ store: SQLiteEventStore, _ path: String, _ settings: Settings, _ m: inout Measurements) throws {
    let rounds = settings.rounds
    m.time("SELECT count(*) FROM events (baseline)", rounds) { _ = count(path, "SELECT count(*) FROM events") }
    m.time("count(*) reading every row (NOT INDEXED)", rounds) {
        _ = count(path, "SELECT count(*) FROM events NOT INDEXED WHERE type IS NOT NULL")
    }
    if !settings.skipScan { try m.time("scan: every event, narrow columns", rounds) { try store.scan(EventScanQuery()) { _ in true } } }
    if !settings.skipReport {
        var report: CollectorReport?
        try m.time("report (whole CollectorReport)", rounds) { report = try CollectorReport(store: store, filter: EventFilter(appKey: "shop")) }
        m.report = report
        try m.time("report, 7 whole days (--since/--until dates)", rounds) { _ = try CollectorReport(store: store, filter: week) }
    }
}

/// The funnel (its actor rows alone, then whole) and the retention.
func measureFunnelAndRetention(_ store: SQLiteEventStore, _ settings: Settings, _ m: inout Measurements) throws {
    let rounds = settings.rounds
    let rowsQuery = FunnelCounter(funnelDefinition).query(EventFilter(appKey: "shop"))
    try m.time("funnel's actor rows alone (actorEvents)", rounds) { try store.actorEvents(rowsQuery) { _ in true } }
    var funnel: FunnelResult?
    try m.time("funnel, 3 steps", rounds) { funnel = try store.funnel(funnelDefinition, filter: EventFilter(appKey: "shop")) }
    m.funnel = funnel
    let retentionDefinition = RetentionDefinition(
        start: EventKind(type: "app_start", name: "launch"), returning: EventKind(type: "app_start", name: "launch"), periods: 7)
    var retention: RetentionResult?
    try m.time("retention, 7 days", rounds) { retention = try store.retention(retentionDefinition, filter: EventFilter(appKey: "shop")) }
    m.retention = retention
}

/// Definitions: the PAY button as a rule (content "PAY"), counted as the studio's preview does,
/// its heatmap, and a funnel whose last step is that rule.
func measureDefinitions(_ store: SQLiteEventStore, _ settings: Settings, _ m: inout Measurements) throws {
    let rounds = settings.rounds
    let payRule = KVCRule(
        id: "pay", appKey: "shop", appVersion: try VersionRange("*"), viewEvent: .buttonClick,
        viewPath: try PathPattern("CartViewController-UIView-UIButton&0-0-9"), keyPath: nil, keyName: nil, content: "PAY")
    var preview: DefinitionCounts?
    try m.time("definition counts, all time", rounds) { preview = try store.definitionCounts(payRule) }
    m.preview = preview
    try m.time("definition counts, 7 whole days", rounds) { _ = try store.definitionCounts(payRule, since: week.since, until: week.until) }
    try m.time("definition counts, 7 days from 01:00", rounds) {
        _ = try store.definitionCounts(payRule, since: week.since! + 3_600_000, until: week.until! + 3_600_000)
    }
    let heatPaths = ShopTraffic.pages.enumerated().map { "\($0.element)-UIView-UIButton&0-0-\($0.offset)" } + ["CartViewController-UIView-UIButton&0-0-9"]
    try m.time("heatmap, 5 paths, 7 whole days", rounds) { _ = try store.heatmap(appKey: "shop", paths: heatPaths, since: week.since, until: week.until) }
    var ruleFunnelDefinition = funnelDefinition
    ruleFunnelDefinition.steps[2] = .rule("pay")
    var ruleFunnel: FunnelResult?
    try m.time("funnel, 3 steps, the last by rule:ID", rounds) {
        ruleFunnel = try store.funnel(ruleFunnelDefinition, filter: EventFilter(appKey: "shop"), rules: ["pay": payRule])
    }
    m.ruleFunnel = ruleFunnel
}

/// Each row's median wall and CPU time with its ratio to the first row's (the count).
func printResults(_ m: Measurements, rounds: Int) {
    let countTime = m.rows[0].timing
    print("median of \(rounds) rounds; wall clock, then this thread's CPU time (each a ratio to the count's)")
    for (name, t) in m.rows {
        print(
            Benchmark.label(name, width: 44)
                + String(format: "%9.1f ms  %7.1f× count(*)   CPU %9.1f ms  %7.1f×", t.wall * 1000, t.wall / countTime.wall, t.cpu * 1000, t.cpu / countTime.cpu))
    }
    print("definitions: \(m.preview?.total ?? 0) PAY clicks; funnel by rule \(m.ruleFunnel?.steps.map(\.actors) ?? []) "
        + "(by kind \(m.funnel?.steps.map(\.actors) ?? []))")
    print("sanity: \(m.report?.activity.days.count ?? 0) days, funnel \(m.funnel?.steps.map(\.actors) ?? []), "
        + "\(m.retention?.cohorts.count ?? 0) cohorts")
}

/// The bytes of the file at `path` with its write-ahead log (0 for a file that is not there).
func bytesOnDisk(_ path: String) -> Int {
    [path, path + "-wal"].reduce(0) { sum, file in
        sum + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
    }
}

/// The disk cost of the derived tables: the rollups files beside the events file (one per
/// `RollupPart`), per event.
func printDiskCost(_ path: String, events: Int64) {
    let eventsFile = bytesOnDisk(path)
    let files = RollupPart.allCases.map { part in (name: "PATH" + part.suffix, bytes: bytesOnDisk(path + part.suffix)) }
    let rollups = files.reduce(0) { $0 + $1.bytes }
    func mb(_ bytes: Int) -> String { Benchmark.fixed(Double(bytes) / 1e6, 1) + " MB" }
    func perEvent(_ bytes: Int) -> String { Benchmark.fixed(Double(bytes) / Double(max(events, 1)), 1) + " bytes per event" }
    print("disk: events file \(mb(eventsFile)) (\(perEvent(eventsFile))), rollups files \(mb(rollups)) (\(perEvent(rollups))) = "
        + "\(Benchmark.ratio(Double(rollups), to: Double(eventsFile))) of the events file ("
        + files.map { "\($0.name) \(mb($0.bytes))" }.joined(separator: ", ") + ")")
}

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
let path = settings.database ?? NSTemporaryDirectory() + "analytics-bench-\(settings.events).sqlite"
do {
    let store = try openStore(path, settings)
    let stored = count(path, "SELECT count(*) FROM events")
    Benchmark.start("analytics-bench: \(stored) events in \(path)")
    var measurements = Measurements()
    try measureCountsAndReports(store, path, settings, &measurements)
    try measureFunnelAndRetention(store, settings, &measurements)
    try measureDefinitions(store, settings, &measurements)
    store.close()
    printResults(measurements, rounds: settings.rounds)
    printDiskCost(path, events: stored)
} catch {
    Benchmark.complain("analytics-bench: \(error)")
    exit(1)
}
