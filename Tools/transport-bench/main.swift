// transport-bench: ATLP/1 throughput and ACK latency on loopback, against a plain-socket
// baseline measured in the same run.
//
//   swift run -c release transport-bench            (~20-40 s)
//   swift run -c release transport-bench --quick    (~5 s)
//
// 1. request/ACK: one connection, one batch in flight; the same pre-encoded EVENTS frames
//    go (a) through the ATLP server to a handler that only acknowledges, and (b) through a
//    bare loopback socket to a thread that reads the frame's bytes and writes back as many
//    bytes as an ACK frame, with no parsing. Ratio = ATLP / baseline.
// 2. EventShipper end to end: enqueue → spool (fsync per batch) → window of batches → ACK.
import ATLPClient
import ATLPServer
import ATLPWire
import BenchmarkSupport
import EventModel
import Foundation
import SystemCalls

let quick = Benchmark.isQuick
var tail = false
ToolArguments(
    "transport-bench",
    usage: Benchmark.usage(
        "transport-bench",
        measures: """
            ATLP/1 events per second and p50/p99 ACK latency on 127.0.0.1 against a plain loopback
            socket carrying the same bytes.
            """,
        options: [("--tail", "also print more percentiles of the ATLP latency")],
        quick: "~5 s instead of ~30 s", example: "swift run -c release transport-bench --quick")
).read { option in
    tail = tail || option == "--tail"
    return option == "--tail"
}

let eventsPerBatch = 500
let latencyBatches = quick ? 300 : 3000
let shipperEvents = quick ? 50_000 : 300_000

/// A handler that only acknowledges: no validation, no storage.
struct AckOnly: ATLPHandler {
    func hello(_ hello: Hello, peer: String) -> HelloDecision { .accept(admin: false) }
    func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply {
        guard case .events(let batch, let events, _) = request else { return .error(.badRequest, "bench takes EVENTS only") }
        return .ack(batch: batch, stored: events.count, duplicates: 0, rejected: 0)
    }
}

func sampleEvent(_ i: Int) -> TrackEvent {
    TrackEvent(
        id: "bench-\(i)", ts: 1_700_000_000_000 + Int64(i), type: .click, name: "HomeViewController#buyButton#tap",
        page: "HomeViewController", path: "UIWindow/UIView/UITableView/ProductCell[0:2]/UIButton[1]",
        props: JSONObject([("sku", .string("p-\(i % 97)")), ("price", .double(9.5))]))
}

func batchFrame(_ n: Int) -> [UInt8] {
    let events = (0..<eventsPerBatch).map { sampleEvent(n * eventsPerBatch + $0).json }
    return ATLPRequest.events(batch: .int(Int64(n)), events: events, sentAt: nil).frame.encoded
}

func micros(_ d: Duration) -> String { Benchmark.fixed(Benchmark.nanoseconds(d) / 1000, 1) + " µs" }

struct Result {
    var total: Duration
    var latencies: [Duration]
    var eventsPerSecond: Double { Double(latencies.count * eventsPerBatch) / Benchmark.seconds(total) }
    var p50: Duration { Benchmark.percentile(latencies, 0.50) }
    var p99: Duration { Benchmark.percentile(latencies, 0.99) }
}

let frames = (0..<16).map(batchFrame)
let frameBytes = frames[0].count
let ackBytes = BatchAck(batch: 0, stored: eventsPerBatch, duplicates: 0, rejected: 0).frame.encoded.count

/// Warms up with every frame, then times `latencyBatches` exchanges of one frame each.
func timeExchanges(_ exchange: ([UInt8]) throws -> Void) throws -> Result {
    for f in frames { try exchange(f) }
    var latencies: [Duration] = []
    latencies.reserveCapacity(latencyBatches)
    let clock = ContinuousClock()
    let start = clock.now
    for i in 0..<latencyBatches {
        let t = clock.now
        try exchange(frames[i % frames.count])
        latencies.append(clock.now - t)
    }
    return Result(total: clock.now - start, latencies: latencies)
}

// MARK: ATLP request/ACK

func measureATLP() throws -> Result {
    let server = ATLPService(configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0), handler: AckOnly())
    let address = try server.start()
    defer { server.stop() }
    let c = try ATLPConnection(to: address, hello: Hello(appKey: "bench"))
    defer { c.close() }
    return try timeExchanges { frame in
        try c.sendBytes(frame)
        let reply = try c.receive()
        guard reply.verb == "ACK" else { fatalError("expected ACK, got \(reply)") }
    }
}

// MARK: baseline: the same bytes over a bare loopback socket

func measureBaseline() throws -> Result {
    let listenFD = try Posix.socket(SocketAddress(host: "127.0.0.1", port: 0))
    try Posix.setReuseAddress(listenFD)
    try Posix.bind(listenFD, SocketAddress(host: "127.0.0.1", port: 0))
    try Posix.listen(listenFD, backlog: 8, SocketAddress(host: "127.0.0.1", port: 0))
    let address = try Posix.localAddress(listenFD)
    let rounds = latencyBatches + frames.count
    let sizes = frames.map(\.count)
    let serverThread = Thread {
        var accepted: (fd: Int32, peer: SocketAddress)?
        while accepted == nil { accepted = try? Posix.accept(listenFD) }
        let fd = accepted!.fd
        try? Posix.setNonBlocking(fd, false)
        try? Posix.setNoDelay(fd)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let ack = [UInt8](repeating: 0x41, count: ackBytes)
        for round in 0..<rounds {
            // The client sends the warm-up frames, then frames[i % count]: the same order here.
            let size = sizes[round < sizes.count ? round : (round - sizes.count) % sizes.count]
            var got = 0
            while got < size {
                let r = try? buffer.withUnsafeMutableBytes { raw in
                    try Posix.read(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<min(raw.count, size - got)]))
                }
                guard case .processed(let n) = r, n > 0 else { return }
                got += n
            }
            try? Posix.sendAll(fd, ack)
        }
        Posix.close(fd)
    }
    serverThread.start()
    let fd = try Posix.socket(address)
    try Posix.connect(fd, address, timeout: .seconds(5))
    try Posix.setNoDelay(fd)
    defer {
        Posix.close(fd)
        Posix.close(listenFD)
    }
    var buffer = [UInt8](repeating: 0, count: 4096)
    func exchange(_ frame: [UInt8]) throws {
        try Posix.sendAll(fd, frame)
        var got = 0
        while got < ackBytes {
            let r = try buffer.withUnsafeMutableBytes { try Posix.read(fd, into: $0) }
            guard case .processed(let n) = r, n > 0 else { fatalError("baseline peer closed") }
            got += n
        }
    }
    return try timeExchanges(exchange)
}

// MARK: EventShipper end to end

/// Time to parse one EVENTS body with EventModel's `JSONValue.parse` (the collector must
/// parse every event to validate it): the floor of the server's work per batch.
func measureParse() throws -> Duration {
    let body = Array(frames[0][(frames[0].firstIndex(of: UInt8(ascii: "{"))!)...])
    let clock = ContinuousClock()
    let rounds = quick ? 20 : 100
    let start = clock.now
    for _ in 0..<rounds { _ = try JSONValue.parse(body) }
    return (clock.now - start) / rounds
}

func measureShipper(spoolRoot: String) throws -> (eventsPerSecond: Double, total: Duration) {
    let server = ATLPService(configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0), handler: AckOnly())
    let address = try server.start()
    defer { server.stop() }
    let spool = spoolRoot + "/transport-bench-\(Posix.processID())"
    defer { try? FileManager.default.removeItem(atPath: spool) }
    let shipper = try EventShipper(
        configuration: EventShipperConfiguration(
            address: address, hello: Hello(appKey: "bench"), spoolDirectory: spool, batchMaxEvents: eventsPerBatch,
            maxSpoolBytes: 1 << 30))
    let events = (0..<shipperEvents).map(sampleEvent)
    let clock = ContinuousClock()
    let start = clock.now
    for e in events { try shipper.enqueue(e) }
    guard shipper.flush(timeout: .seconds(300)) else { fatalError("shipper did not deliver: \(shipper.statistics)") }
    let total = clock.now - start
    shipper.close()
    return (Double(shipperEvents) / Benchmark.seconds(total), total)
}

Benchmark.start("transport-bench: \(eventsPerBatch) events per batch, \(frameBytes) bytes per EVENTS frame, \(latencyBatches) batches")
let baseline = try measureBaseline()
let atlp = try measureATLP()
let parse = try measureParse()
let shipper = try measureShipper(spoolRoot: NSTemporaryDirectory())
let memoryRoot = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : nil
let shipperInMemory = try memoryRoot.map { try measureShipper(spoolRoot: $0) }
func row(_ name: String, _ r: Result) {
    print(
        Benchmark.label(name, width: 28)
            + Benchmark.fixed(r.eventsPerSecond, 0, width: 12) + " events/s" + "   p50 \(micros(r.p50))   p99 \(micros(r.p99))")
}
row("baseline (bare socket)", baseline)
row("ATLP request/ACK", atlp)
if tail {
    let sorted = atlp.latencies.sorted()
    for p in [0.5, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99] { print("  p\(p)", micros(Benchmark.percentile(sorted, p))) }
    print("  over 8 ms:", sorted.filter { $0 > .milliseconds(8) }.count, "of", sorted.count)
    print("  indexes over 8 ms:", atlp.latencies.enumerated().filter { $0.element > .milliseconds(8) }.map(\.offset).prefix(30))
}
print(
    String(
        format: "ratio ATLP/baseline: throughput %.3f, p50 latency %.2fx, p99 latency %.2fx",
        atlp.eventsPerSecond / baseline.eventsPerSecond, Benchmark.seconds(atlp.p50) / Benchmark.seconds(baseline.p50),
        Benchmark.seconds(atlp.p99) / Benchmark.seconds(baseline.p99)))
print("for scale: JSONValue.parse (EventModel) of one EVENTS body alone, on this thread: \(micros(parse))")
print(
    String(
        format: "EventShipper end to end, spool in %@ (fsync per batch, window 4): %.0f events/s (%d events in %.2f s), %.4f of baseline",
        NSTemporaryDirectory(), shipper.eventsPerSecond, shipperEvents, Benchmark.seconds(shipper.total),
        shipper.eventsPerSecond / baseline.eventsPerSecond))
if let m = shipperInMemory, let root = memoryRoot {
    print(
        String(
            format: "EventShipper end to end, spool in %@ (tmpfs: fsync is free): %.0f events/s (%d events in %.2f s), %.4f of baseline",
            root, m.eventsPerSecond, shipperEvents, Benchmark.seconds(m.total), m.eventsPerSecond / baseline.eventsPerSecond))
}
