// pipeline-bench: events per second from ATLP clients into the collector's handler with
// SQLite commits (one transaction per batch, synchronous=FULL, WAL), on the realistic ingest mix
// (ShopTraffic.ingestMix, as ingest-bench), beside the same load
// into a server whose handler only acknowledges (the transport alone) as the baseline.
//
// Each client keeps a window of batches in flight, as the agent's shipper does (--window N, default
// EventShipperConfiguration's default), and reads their ACKs in order.
//
//   swift run -c release pipeline-bench [--quick] [--connections N] [--batch N] [--window N] [--events N]

import ATLPClient
import ATLPServer
import ATLPWire
import BenchmarkSupport
import Collector
import EventModel
import EventStore
import SQLiteStore
import Foundation
import Synchronization
import SystemCalls
import TestSupport

/// A handler that acknowledges every batch without storing it: what the transport costs alone.
struct AcknowledgeOnly: ATLPHandler {
    func hello(_ hello: Hello, peer: String) -> HelloDecision { .accept(admin: false) }
    func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply {
        if case .events(let batch, let events, _) = request {
            return .ack(batch: batch, stored: events.count, duplicates: 0, rejected: 0)
        }
        return .error(.badRequest, "benchmark handler takes EVENTS only")
    }
}

struct Settings: Sendable {
    var connections = 4
    var batch = 100
    var window = EventShipperConfiguration.defaultWindow
    var events = 60_000
    var rounds = 3

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        let arguments = ToolArguments(
            "pipeline-bench",
            usage: Benchmark.usage(
                "pipeline-bench",
                measures: "Events/s from ATLP clients into the collector's handler with SQLite commits, as a ratio to an acknowledge-only handler.",
                options: [
                    ("--connections N", "client connections (default 4)"), ("--batch N", "events per EVENTS batch (default 100)"),
                    ("--window N", "batches in flight per connection (default \(EventShipperConfiguration.defaultWindow), the agent's shipper's window)"),
                    ("--events N", "events per round (default 60,000)"),
                ],
                quick: "20,000 events, 1 round", example: "swift run -c release pipeline-bench --quick"),
            arguments: args)
        arguments.read { option in
            switch option {
            case "--quick":
                s.events = 20_000
                s.rounds = 1
            case "--connections": s.connections = arguments.count(after: option)
            case "--batch": s.batch = arguments.count(after: option)
            case "--window": s.window = arguments.count(after: option)
            case "--events": s.events = arguments.count(after: option)
            default: return false
            }
            return true
        }
        return s
    }
}

/// The prepared load: per connection, its batches.
struct Load: Sendable {
    let batches: [[[JSONValue]]]
    let window: Int
    var total: Int { batches.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }

    /// The realistic ingest mix (TestSupport's ShopTraffic.ingestMix, seed 25: 7 days, 2,000
    /// devices, 400 signed in, sessions, page enter/leave with dwell, clicks over 60 paths), its
    /// batches dealt round-robin to the connections.
    init(_ settings: Settings) {
        var traffic = ShopTraffic.ingestMix(seed: 25)
        batches = traffic.dealt(total: settings.events, batchSize: settings.batch, senders: settings.connections)
        window = settings.window
    }

    /// Sends every batch over one connection per list, in parallel, each keeping `window` batches
    /// in flight and reading their ACKs in order (as an agent does); returns events per second.
    func send(to address: SocketAddress) -> Double {
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        let elapsed = Benchmark.wallTime {
            for list in batches {
                group.enter()
                let thread = Thread {
                    defer { group.leave() }
                    do {
                        let connection = try ATLPConnection(to: address, hello: Hello(appKey: "bench", appVersion: "1.0.0"))
                        try connection.sendEvents(
                            window: window,
                            next: { n in
                                guard n < list.count else { return nil }
                                return EventsRequest(batch: .int(Int64(n)), events: list[n], sentAt: Int64(Date().timeIntervalSince1970 * 1000))
                            },
                            acknowledged: { n, ack in
                                if ack.stored + ack.duplicates != list[n].count { failures.withLock { $0.append("batch \(n): \(ack)") } }
                            })
                        connection.close()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
                thread.start()
            }
            group.wait()
        }
        if let f = failures.withLock({ $0.first }) {
            Benchmark.complain("pipeline-bench: a client failed: \(f)")
            exit(1)
        }
        return Double(total) / Benchmark.seconds(elapsed)
    }
}

func transportOnly(_ load: Load) -> Double {
    let server = ATLPService(configuration: ATLPServerConfiguration(port: 0), handler: AcknowledgeOnly())
    let address = try! server.start()
    defer { server.stop() }
    return load.send(to: address)
}

func pipeline(_ load: Load, _ durability: StoreOptions.Durability) -> (rate: Double, stored: Int) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-bench-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("bench.sqlite").path
    let collector = EmbeddedCollector(dbPath: db, options: EmbeddedCollector.Options(durability: durability))
    let address = try! collector.start()
    let rate = load.send(to: address)
    collector.stop()
    let stored = (try? SQLiteEventStore(path: db, options: StoreOptions(access: .existing)).totals(.all).events) ?? -1
    return (rate, stored)
}

/// The store alone, no sockets: the same batches inserted by one thread per connection's list
/// (`threads` of them in parallel, so group commit can join their commits), or by one thread.
func storeOnly(_ load: Load, _ durability: StoreOptions.Durability, parallel: Bool) -> Double {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pipeline-bench-\(UUID().uuidString.prefix(8))")
    try! FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let store = try! SQLiteEventStore(path: dir.appendingPathComponent("bench.sqlite").path, options: StoreOptions(durability: durability))
    let elapsed = Benchmark.wallTime {
        if parallel {
            let group = DispatchGroup()
            for list in load.batches {
                group.enter()
                Thread {
                    for batch in list { _ = try! store.append(EventBatch(appKey: "bench", events: batch)) }
                    group.leave()
                }.start()
            }
            group.wait()
        } else {
            for list in load.batches {
                for batch in list { _ = try! store.append(EventBatch(appKey: "bench", events: batch)) }
            }
        }
    }
    store.close()
    return Double(load.total) / Benchmark.seconds(elapsed)
}

func median(_ xs: [Double]) -> Double { Benchmark.median(xs) }
func format(_ v: Double) -> String { Benchmark.fixed(v, 0) }

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
let load = Load(settings)
let totalEvents = load.total
Benchmark.start("pipeline-bench: \(totalEvents) events, \(settings.connections) connections, batches of \(settings.batch), "
    + "a window of \(settings.window) batches in flight per connection, "
    + "\(settings.rounds) round(s), median shown")
var baseline: [Double] = []
var full: [Double] = []
var normal: [Double] = []
var storeFull: [Double] = []
var storeFullParallel: [Double] = []
var storeNormal: [Double] = []
for _ in 0..<settings.rounds {
    baseline.append(transportOnly(load))
    let f = pipeline(load, .full)
    guard f.stored == totalEvents else {
        print("pipeline-bench: stored \(f.stored) of \(totalEvents) events; the pipeline lost events")
        exit(1)
    }
    full.append(f.rate)
    normal.append(pipeline(load, .normal).rate)
    storeFull.append(storeOnly(load, .full, parallel: false))
    storeFullParallel.append(storeOnly(load, .full, parallel: true))
    storeNormal.append(storeOnly(load, .normal, parallel: false))
}
let b = median(baseline), f = median(full), n = median(normal)
print("transport only (ACK, no storage):        \(format(b)) events/s  (baseline)")
print("collector, SQLite synchronous=FULL:      \(format(f)) events/s  ratio \(Benchmark.ratio(f, to: b, digits: 3))")
print("collector, SQLite synchronous=NORMAL:    \(format(n)) events/s  ratio \(Benchmark.ratio(n, to: b, digits: 3))")
print("")
print("the store alone, no sockets (where the time goes):")
print("  SQLiteEventStore.append, FULL,   1 thread:                 \(format(median(storeFull))) events/s")
print("  SQLiteEventStore.append, FULL,   \(settings.connections) threads (group commit): \(format(median(storeFullParallel))) events/s")
print("  SQLiteEventStore.append, NORMAL, 1 thread:                 \(format(median(storeNormal))) events/s")
