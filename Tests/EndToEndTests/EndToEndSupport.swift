import Foundation
import SystemCalls
import Testing
import TestSupport

/// `autotrack-collector serve` as a child process on a loopback port.
final class ServeProcess {
    let process: ChildProcess
    /// `127.0.0.1:PORT`, as the server announced it.
    let address: String
    let port: UInt16

    /// What `--db` names and the other options, for `killedAndStartedAgain`.
    private let database: String
    private let extra: [String]

    /// Starts `serve` on `listen` (default: an ephemeral port) with the database `db`.
    convenience init(db: URL, listen: String = "127.0.0.1:0", extra: [String] = []) throws {
        try self.init(database: db.path, listen: listen, extra: extra)
    }

    /// Starts `serve` on `listen` with `--db database` (a path or a `postgresql://` URI).
    init(database: String, listen: String = "127.0.0.1:0", extra: [String] = []) throws {
        process = try ChildProcess(Binaries.collector, ["serve", "--listen", listen, "--db", database] + extra)
        let line = try process.firstLine(within: 30)
        address = try announcedAddress(in: line)
        port = UInt16(address.split(separator: ":").last!)!
        self.database = database
        self.extra = extra
    }

    /// SIGKILL: the collector gets no chance to finish anything.
    func kill() { process.kill(SIGKILL) }

    /// SIGKILL, then a new `serve` of the same database and options on the same address.
    func killedAndStartedAgain() throws -> ServeProcess {
        kill()
        _ = try process.waitForExit(within: 10)
        return try ServeProcess(database: database, listen: address, extra: extra)
    }

    /// SIGTERM, then waits for a clean exit.
    func stop() throws {
        process.kill(SIGTERM)
        try process.waitForExit(within: 20)
    }
}

/// The collector's report for `db`, parsed from `report --format json`.
struct CollectorReportJSON {
    let root: [String: Any]

    init(root: [String: Any]) { self.root = root }

    init(db: URL) throws {
        let r = try runCommand(Binaries.collector, ["report", "--db", db.path, "--format", "json"], within: 60)
        guard r.status == 0 else { throw HarnessError(description: "report exited \(r.status): \(r.err)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any] else {
            throw HarnessError(description: "report --format json printed no JSON object: \(r.out)")
        }
        root = object
    }

    func total(_ key: String) -> Int { ((root["totals"] as? [String: Any])?[key] as? NSNumber)?.intValue ?? -1 }

    /// A list section (`eventTypes`, `events`, `kvcErrors`, `rejected`...) as dictionaries.
    func rows(_ key: String) -> [[String: Any]] { root[key] as? [[String: Any]] ?? [] }

    /// `eventTypes` as type → count.
    var typeCounts: [String: Int] {
        Dictionary(uniqueKeysWithValues: rows("eventTypes").map { ($0["type"] as! String, ($0["count"] as! NSNumber).intValue) })
    }

    /// `events` as "type name" → count.
    var nameCounts: [String: Int] {
        Dictionary(
            uniqueKeysWithValues: rows("events").map {
                ("\($0["type"] as! String) \($0["name"] as! String)", ($0["count"] as! NSNumber).intValue)
            })
    }

    /// `rejected` as reason → count.
    var rejectedCounts: [String: Int] {
        Dictionary(uniqueKeysWithValues: rows("rejected").map { ($0["reason"] as! String, ($0["count"] as! NSNumber).intValue) })
    }
}

/// `autotrack-agent send` to `address` of `count` test events (`AgentCollectorEndToEndTests.eventLines`,
/// written as NDJSON into `dir`) as app `shop` 1.2.0, spooling in `dir`, in batches of 250.
func agentSending(_ count: Int, in dir: URL, to address: String) throws -> ChildProcess {
    let (first, second) = AgentCollectorEndToEndTests.eventLines(count: count)
    let file = dir.appendingPathComponent("events.ndjson")
    try (first + second).write(to: file)
    return try ChildProcess(
        Binaries.agent,
        [
            "send", "--to", address, "--app-key", "shop", "--app-version", "1.2.0", "--spool", dir.appendingPathComponent("spool").path,
            "--batch-events", "250", file.path,
        ])
}

/// Kills `serve` with SIGKILL after each of `pauses` (seconds) while `send` runs, a new one
/// started on its address each time: at different moments of a send (a burst of appends, the
/// storing of what waits, the rollups' transactions). The last `serve`, and how many were
/// killed (bounded: at most one per pause).
func killedWhileSending(_ serve: ServeProcess, _ send: ChildProcess, pauses: [Double] = [0.3, 0.6, 0.2, 0.9]) throws -> (
    serve: ServeProcess, kills: Int
) {
    var serve = serve, kills = 0
    for pause in pauses where send.process.isRunning {
        Thread.sleep(forTimeInterval: pause)
        serve = try serve.killedAndStartedAgain()
        kills += 1
    }
    return (serve, kills)
}

/// Polls `condition` every 50 ms until it holds or `seconds` pass.
func poll(_ what: String, within seconds: Double, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return }
        Thread.sleep(forTimeInterval: 0.05)
    }
    throw HarnessError(description: "\(what) did not happen within \(seconds) s")
}

/// The demo's scripted session as the example configuration sees it: events by type, and by type and name.
enum DemoExpectations {
    static let total = 26
    static let types: [String: Int] = [
        "click": 5, "page_enter": 5, "page_leave": 4, "value_changed": 4, "list_item_click": 2, "app_background": 1,
        "app_foreground": 1, "app_start": 1, "gesture": 1, "kvc_error": 1, "scroll": 1,
    ]
    static let names: [String: Int] = [
        "page_enter EVENT_HOME_ENTER_PAGE": 3,
        "list_item_click CTRL_EVENT_HOME_OPEN_PRODUCT": 2,
        "page_enter EVENT_DETAIL_ENTER_PAGE": 2,
        "page_leave EVENT_DETAIL_LEAVE_PAGE": 2,
        "page_leave EVENT_HOME_LEAVE_PAGE": 2,
        "value_changed DetailViewController#DetailViewController#onQuantityChanged:": 2,
        "app_background app_background": 1,
        "app_foreground app_foreground": 1,
        "app_start app_start": 1,
        "click CTRL_EVENT_DETAIL_ADD_TO_CART": 1,
        "click CTRL_EVENT_DETAIL_FAV": 1,
        "click CTRL_EVENT_HOME_FAV": 1,
        "click CTRL_EVENT_HOME_SHARE": 1,
        "click DetailViewController#DetailViewController#onShareBtnPressed:": 1,
        "gesture DetailViewController#DetailViewController#onImageTapped:": 1,
        "kvc_error detail-share-sku": 1,
        "scroll HomeViewController#HomeViewController#scrollViewDidEndDragging:willDecelerate:": 1,
        "value_changed CTRL_EVENT_DETAIL_SIZE": 1,
        "value_changed CTRL_EVENT_HOME_IN_STOCK": 1,
    ]

    static func check(_ report: CollectorReportJSON, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(report.total("events") == total, sourceLocation: sourceLocation)
        #expect(report.total("rejected") == 0, sourceLocation: sourceLocation)
        #expect(report.typeCounts == types, sourceLocation: sourceLocation)
        #expect(report.nameCounts == names, sourceLocation: sourceLocation)
        let errors = report.rows("kvcErrors")
        #expect(errors.count == 1, sourceLocation: sourceLocation)
        if let e = errors.first {
            #expect(e["rule"] as? String == "detail-share-sku", sourceLocation: sourceLocation)
            #expect(e["appVersion"] as? String == "1.2.0", sourceLocation: sourceLocation)
            #expect(e["keyPaths"] as? [String] == ["parent.parent.product.sku"], sourceLocation: sourceLocation)
            #expect(e["missingKeys"] as? [String] == ["sku"], sourceLocation: sourceLocation)
        }
    }
}
