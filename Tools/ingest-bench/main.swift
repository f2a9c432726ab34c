// ingest-bench: events per second the collector stores, durably, from agents over real TCP, beside
// rsyslog writing the very same events to a file with sync="on" (the baseline: what a plain
// durable log writer does with this disk), in one run. Release build:
//
//   swift run -c release ingest-bench [--events N] [--connections N] [--batch N] [--seed N]
//
// 1. The load: TestSupport's ShopTraffic.ingestMix (seeded): 7 days, 2,000 devices, 400 signed-in
//    users, sessions, page enter/leave with dwell, clicks over 60 paths. Its batches are dealt
//    round-robin to the connections.
// 2. The collector: an EmbeddedCollector on 127.0.0.1 (ephemeral port), a fresh SQLite database
//    in a temporary directory (synchronous=FULL, the default). One ATLP connection per sender
//    thread sends EVENTS batches and waits for each ACK (sent after the commit) before the next.
//    Rate = events / (first send → last ACK); then the database is counted.
// 3. The baseline: rsyslogd started by the bench (`rsyslogd -n -f CONF -i PIDFILE`, generated
//    config in a temporary directory: imtcp on 127.0.0.1, omfile with sync="on" and a 1 MiB
//    buffer, so it syncs once per batch it dequeues, as the collector commits once per batch;
//    with the default 4 KiB buffer it syncs every ~20 events and ran 2.4x slower). The same events
//    as RFC 5424 lines (the event's JSON as the message) over TCP with octet-counting framing
//    (RFC 6587), one connection per sender. Rate = events / (first send → the file holds every
//    line), the file's lines polled, bounded in time. Skipped, and said so, when rsyslogd is not
//    installed (Tools/setup.sh installs it).
import ATLPClient
import ATLPWire
import BenchmarkSupport
import Collector
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Synchronization
import SystemCalls
import TestSupport

let usage = """
    usage: ingest-bench [--events N] [--connections N] [--batch N] [--seed N] [--quick]
    Durable events/s into the collector (EmbeddedCollector, SQLite, ACK after the commit) over real
    TCP, beside rsyslog (imtcp -> omfile sync="on") fed the same events, in one run.
      --events N        events in the load (default 200000; --quick: 20000)
      --connections N   sender connections (default 4)
      --batch N         events per EVENTS batch (default 500)
      --seed N          seed of the generated mix (default 25)
    example: swift run -c release ingest-bench --events 20000
    """

struct Settings {
    var events = 200_000
    var connections = 4
    var batch = 500
    var seed: UInt64 = 25

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        func value(after i: Int) -> Int {
            guard i + 1 < args.count, let v = Int(args[i + 1]), v > 0 else {
                FileHandle.standardError.write(Data("ingest-bench: \(args[i]) needs a positive whole number; see --help\n".utf8))
                exit(2)
            }
            return v
        }
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--quick": s.events = 20_000
            case "--events": s.events = value(after: i); i += 1
            case "--connections": s.connections = value(after: i); i += 1
            case "--batch": s.batch = value(after: i); i += 1
            case "--seed": s.seed = UInt64(value(after: i)); i += 1
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                FileHandle.standardError.write(Data("ingest-bench: unknown argument '\(args[i])'; see --help\n".utf8))
                exit(2)
            }
            i += 1
        }
        return s
    }
}

func fail(_ message: String) -> Never {
    Benchmark.complain("ingest-bench: \(message)")
    exit(1)
}

func temporaryDirectory(_ label: String) -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-bench-\(label)-\(UUID().uuidString.prefix(8))")
    do {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    } catch {
        fail("cannot create \(dir.path): \(error); set TMPDIR to a writable directory")
    }
    return dir
}

/// Runs `body(i)` on one thread per sender, all at once; returns when all are done.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            body(i)
            group.leave()
        }.start()
    }
    group.wait()
}

// MARK: the collector

func collectorRate(_ perConnection: [[[JSONValue]]], total: Int) -> (rate: Double, stored: Int) {
    let dir = temporaryDirectory("collector")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("events.sqlite").path
    let collector = EmbeddedCollector(dbPath: db, options: EmbeddedCollector.Options())
    let address: SocketAddress
    do {
        address = try collector.start()
    } catch {
        fail("the collector did not start: \(error)")
    }
    let failures = Mutex<[String]>([])
    let start = ContinuousClock.now
    onThreads(perConnection.count) { c in
        do {
            let connection = try ATLPConnection(to: address, hello: Hello(appKey: "bench", appVersion: "1.0.0"), timeout: .seconds(120))
            defer { connection.close() }
            for (n, batch) in perConnection[c].enumerated() {
                let ack = try connection.sendEvents(batch: .string("c\(c)-b\(n)"), events: batch)
                if ack.stored + ack.duplicates != batch.count {
                    failures.withLock { $0.append("connection \(c) batch \(n): \(ack)") }
                }
            }
        } catch {
            failures.withLock { $0.append("connection \(c): \(error)") }
        }
    }
    let elapsed = ContinuousClock.now - start
    collector.stop()
    if let f = failures.withLock({ $0.first }) { fail("a collector client failed: \(f)") }
    let stored = (try? SQLiteEventStore(path: db, options: StoreOptions(access: .existing)).totals(.all).events) ?? -1
    return (Double(total) / Benchmark.seconds(elapsed), stored)
}

// MARK: the rsyslog baseline

func findRsyslogd() -> String? {
    let paths = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd", "/usr/local/sbin/rsyslogd"]
        + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/rsyslogd" }
    return paths.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The events as octet-counted syslog frames (RFC 6587 §3.4.1): "LEN SP <134>1 - bench autotrack - - - JSON".
func syslogFrames(_ batches: [[JSONValue]]) -> [[UInt8]] {
    batches.map { batch in
        var out: [UInt8] = []
        for event in batch {
            let message = Array("<134>1 - bench autotrack - - - ".utf8) + event.jsonBytes
            out += Array("\(message.count) ".utf8)
            out += message
        }
        return out
    }
}

/// Counts the event lines (those starting with the JSON's `{`) of a growing file, reading only
/// what was added since the last call.
final class LineCounter {
    let path: String
    private var handle: FileHandle?
    private var atLineStart = true
    private(set) var lines = 0

    init(_ path: String) { self.path = path }

    func update() -> Int {
        if handle == nil { handle = FileHandle(forReadingAtPath: path) }
        guard let handle else { return 0 }
        while let data = try? handle.read(upToCount: 1 << 20), !data.isEmpty {
            for byte in data {
                if atLineStart, byte == UInt8(ascii: "{") { lines += 1 }
                atLineStart = byte == 0x0A
            }
        }
        return lines
    }
}

func rsyslogRate(_ rsyslogd: String, _ perConnection: [[[JSONValue]]], total: Int) -> Double {
    let dir = temporaryDirectory("rsyslog")
    defer { try? FileManager.default.removeItem(at: dir) }
    let work = dir.appendingPathComponent("work")
    try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let portFile = dir.appendingPathComponent("port").path
    let logFile = dir.appendingPathComponent("events.log").path
    let conf = dir.appendingPathComponent("rsyslog.conf").path
    let config = """
        global(workDirectory="\(work.path)")
        module(load="imtcp")
        template(name="messageOnly" type="string" string="%msg%\\n")
        input(type="imtcp" address="127.0.0.1" port="0" listenPortFileName="\(portFile)")
        action(type="omfile" file="\(logFile)" template="messageOnly" sync="on" ioBufferSize="1m")

        """
    do {
        try config.write(toFile: conf, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(conf): \(error)")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: rsyslogd)
    process.arguments = ["-n", "-f", conf, "-i", dir.appendingPathComponent("rsyslogd.pid").path]
    let output = dir.appendingPathComponent("rsyslogd.out").path
    FileManager.default.createFile(atPath: output, contents: nil)
    process.standardError = FileHandle(forWritingAtPath: output)
    process.standardOutput = FileHandle(forWritingAtPath: output)
    do {
        try process.run()
    } catch {
        fail("cannot start \(rsyslogd): \(error)")
    }
    defer {
        process.terminate()
        process.waitUntilExit()
    }
    // rsyslogd writes the port it listens on once imtcp is up.
    var port: UInt16?
    let deadline = ContinuousClock.now + .seconds(20)
    while port == nil, ContinuousClock.now < deadline, process.isRunning {
        port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if port == nil { Thread.sleep(forTimeInterval: 0.02) }
    }
    guard let port else {
        fail("rsyslogd did not start listening within 20 s (config \(conf), its output \(output)); is it rsyslog 8.2106 or newer (imtcp listenPortFileName)?")
    }
    let frames = perConnection.map(syslogFrames)
    let address = SocketAddress(host: "127.0.0.1", port: port)
    let counter = LineCounter(logFile)
    let failures = Mutex<[String]>([])
    let start = ContinuousClock.now
    onThreads(frames.count) { c in
        // A plain TCP connection (not ATLPConnection, whose close says BYE and waits for an answer).
        do throws(PosixError) {
            let fd = try Posix.socket(address)
            defer { Posix.close(fd) }
            try Posix.connect(fd, address, timeout: .seconds(10))
            for bytes in frames[c] { try Posix.sendAll(fd, bytes) }
        } catch {
            failures.withLock { $0.append("connection \(c): \(error)") }
        }
    }
    if let f = failures.withLock({ $0.first }) { fail("an rsyslog client failed: \(f)") }
    let waitUntil = ContinuousClock.now + .seconds(300)
    while counter.update() < total, ContinuousClock.now < waitUntil, process.isRunning {
        Thread.sleep(forTimeInterval: 0.005)
    }
    let elapsed = ContinuousClock.now - start
    guard counter.lines == total else {
        fail("rsyslog wrote \(counter.lines) event lines of \(total) lines to \(logFile) within 300 s (running: \(process.isRunning))")
    }
    return Double(total) / Benchmark.seconds(elapsed)
}

// MARK: the run

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
var traffic = ShopTraffic.ingestMix(seed: settings.seed)
let perConnection = traffic.dealt(total: settings.events, batchSize: settings.batch, senders: settings.connections)
let total = perConnection.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
let bytes = perConnection.reduce(0) { $0 + $1.reduce(0) { $0 + $1.reduce(0) { $0 + $1.jsonBytes.count } } }
print("ingest-bench: \(total) events (ShopTraffic.ingestMix, seed \(settings.seed), \(bytes / total) bytes of JSON each on average), "
    + "\(settings.connections) connections, batches of \(settings.batch), ACK after the commit")
print("load average before: \(Benchmark.loadAverage())")

let collector = collectorRate(perConnection, total: total)
guard collector.stored == total else { fail("the collector stored \(collector.stored) of \(total) events") }
let r = String(format: "%.0f", collector.rate)
print("collector (EmbeddedCollector, SQLite synchronous=FULL):  \(r) events/s stored")

if let rsyslogd = findRsyslogd() {
    let baseline = rsyslogRate(rsyslogd, perConnection, total: total)
    print("rsyslog (imtcp -> omfile sync=\"on\", the baseline):       \(String(format: "%.0f", baseline)) events/s written")
    print("ratio collector / rsyslog:                              \(Benchmark.ratio(collector.rate, to: baseline, digits: 3))")
} else {
    print("rsyslog: not installed (no rsyslogd on PATH or in /usr/sbin): no baseline; Tools/setup.sh installs it")
}
print("load average after: \(Benchmark.loadAverage())")
