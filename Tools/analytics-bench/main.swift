// analytics-bench: the analytics over 1,000,000 stored events (seeded shop traffic), each as a
// ratio to one full `SELECT count(*) FROM events` in the same run: the whole `report`
// computation (all time, and 7 whole days), a 3-step `funnel` and a 7-day `retention`. Also the
// narrow scan alone, and a count that reads every row (`NOT INDEXED`), for scale. Median of
// --rounds runs each. The events are stored through `append`; the rollup tables (schema 5) follow
// behind a watermark (schema 7) and are brought up to the last event before the rounds (timed); a
// file from an older build is migrated and its rollups rebuilt first (timed).
// Definitions (module Definitions): a rule's counts (all time, 7 whole days, 7 days in hours), a
// heatmap of five paths, and the funnel with its last step as a rule (rule:ID, read through
// `events` and matched in Swift) beside the same funnel by kind.
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

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
let path = settings.database ?? NSTemporaryDirectory() + "analytics-bench-\(settings.events).sqlite"
do {
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
    let stored = count(path, "SELECT count(*) FROM events")
    Benchmark.start("analytics-bench: \(stored) events in \(path)")

    let countTime = median(settings.rounds) { _ = count(path, "SELECT count(*) FROM events") }
    let rowsTime = median(settings.rounds) { _ = count(path, "SELECT count(*) FROM events NOT INDEXED WHERE type IS NOT NULL") }
    let scanTime = settings.skipScan ? Timing(wall: 0, cpu: 0) : try median(settings.rounds) { try store.scan(EventScanQuery()) { _ in true } }
    var report: CollectorReport?
    let reportTime =
        settings.skipReport ? Timing(wall: 0, cpu: 0) : try median(settings.rounds) { report = try CollectorReport(store: store, filter: EventFilter(appKey: "shop")) }
    let week = EventFilter(appKey: "shop", since: 1_793_491_200_000, until: 1_793_491_200_000 + 7 * 86_400_000)
    let weekTime = settings.skipReport ? Timing(wall: 0, cpu: 0) : try median(settings.rounds) { _ = try CollectorReport(store: store, filter: week) }
    let funnelDefinition = FunnelDefinition(
        steps: [
            EventKind(type: "page_enter", name: "HomeViewController"), EventKind(type: "page_enter", name: "ProductDetailViewController"),
            EventKind(type: "click", name: "PAY"),
        ])
    let rowsQuery = FunnelCounter(funnelDefinition).query(EventFilter(appKey: "shop"))
    let actorRowsTime = try median(settings.rounds) { try store.actorEvents(rowsQuery) { _ in true } }
    var funnel: FunnelResult?
    let funnelTime = try median(settings.rounds) { funnel = try store.funnel(funnelDefinition, filter: EventFilter(appKey: "shop")) }
    let retentionDefinition = RetentionDefinition(
        start: EventKind(type: "app_start", name: "launch"), returning: EventKind(type: "app_start", name: "launch"), periods: 7)
    var retention: RetentionResult?
    let retentionTime = try median(settings.rounds) {
        retention = try store.retention(retentionDefinition, filter: EventFilter(appKey: "shop"))
    }
    // Definitions: the PAY button as a rule (content "PAY"), counted as the studio's preview does.
    let payRule = KVCRule(
        id: "pay", appKey: "shop", appVersion: try VersionRange("*"), viewEvent: .buttonClick,
        viewPath: try PathPattern("CartViewController-UIView-UIButton&0-0-9"), keyPath: nil, keyName: nil, content: "PAY")
    var preview: DefinitionCounts?
    let previewTime = try median(settings.rounds) { preview = try store.definitionCounts(payRule) }
    let previewWeekTime = try median(settings.rounds) { _ = try store.definitionCounts(payRule, since: week.since, until: week.until) }
    let previewHoursTime = try median(settings.rounds) {
        _ = try store.definitionCounts(payRule, since: week.since! + 3_600_000, until: week.until! + 3_600_000)
    }
    let heatPaths = ShopTraffic.pages.enumerated().map { "\($0.element)-UIView-UIButton&0-0-\($0.offset)" } + ["CartViewController-UIView-UIButton&0-0-9"]
    let heatmapTime = try median(settings.rounds) { _ = try store.heatmap(appKey: "shop", paths: heatPaths, since: week.since, until: week.until) }
    var ruleFunnelDefinition = funnelDefinition
    ruleFunnelDefinition.steps[2] = .rule("pay")
    var ruleFunnel: FunnelResult?
    let ruleFunnelTime = try median(settings.rounds) {
        ruleFunnel = try store.funnel(ruleFunnelDefinition, filter: EventFilter(appKey: "shop"), rules: ["pay": payRule])
    }
    store.close()

    func line(_ name: String, _ t: Timing) {
        print(
            Benchmark.label(name, width: 44)
                + String(format: "%9.1f ms  %7.1f× count(*)   CPU %9.1f ms  %7.1f×", t.wall * 1000, t.wall / countTime.wall, t.cpu * 1000, t.cpu / countTime.cpu))
    }
    print("median of \(settings.rounds) rounds; wall clock, then this thread's CPU time (each a ratio to the count's)")
    line("SELECT count(*) FROM events (baseline)", countTime)
    line("count(*) reading every row (NOT INDEXED)", rowsTime)
    if !settings.skipScan { line("scan: every event, narrow columns", scanTime) }
    if !settings.skipReport {
        line("report (whole CollectorReport)", reportTime)
        line("report, 7 whole days (--since/--until dates)", weekTime)
    }
    line("funnel's actor rows alone (actorEvents)", actorRowsTime)
    line("funnel, 3 steps", funnelTime)
    line("retention, 7 days", retentionTime)
    line("definition counts, all time", previewTime)
    line("definition counts, 7 whole days", previewWeekTime)
    line("definition counts, 7 days from 01:00", previewHoursTime)
    line("heatmap, 5 paths, 7 whole days", heatmapTime)
    line("funnel, 3 steps, the last by rule:ID", ruleFunnelTime)
    print("definitions: \(preview?.total ?? 0) PAY clicks; funnel by rule \(ruleFunnel?.steps.map(\.actors) ?? []) "
        + "(by kind \(funnel?.steps.map(\.actors) ?? []))")
    print("sanity: \(report?.activity.days.count ?? 0) days, funnel \(funnel?.steps.map(\.actors) ?? []), "
        + "\(retention?.cohorts.count ?? 0) cohorts")
} catch {
    Benchmark.complain("analytics-bench: \(error)")
    exit(1)
}
