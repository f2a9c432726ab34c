// snapshot-memory-bench: what large SNAPSHOT frames cost the collector in memory. The built
// `autotrack-collector serve --accept-snapshots` (beside this tool) runs as a process of its own;
// clients on loopback send it pictures of 11.5 MB (frames of 15.3 MiB, near the 16 MiB maximum)
// while its anonymous resident memory (`RssAnon`, /proc) is read every 5 ms. Baseline: one
// connection sending one snapshot. Figure: 8 connections sending 3 each at once, the audit's
// load. Both as MiB above the idle collector, at the peak and once at rest; the ratio says how far
// concurrency multiplies the memory of one picture (the budget, `snapshotMemoryBudget`, admits
// one such frame at a time).
//
//   swift run -c release snapshot-memory-bench [--quick]

import ATLPClient
import ATLPWire
import BenchmarkSupport
import EventModel
import Foundation
import Synchronization
import SystemCalls

ToolArguments(
    "snapshot-memory-bench",
    usage: Benchmark.usage(
        "snapshot-memory-bench",
        measures: "The collector's RssAnon while 8 connections send 3 snapshot frames of 15.3 MiB each, against one frame alone.",
        quick: "4 connections of 2 frames of 4 MiB", example: "swift run -c release snapshot-memory-bench --quick")
).read()
let quick = Benchmark.isQuick
let pictureBytes = quick ? 3_000_000 : 11_470_000

/// The collector binary built beside this tool.
let collector = URL(fileURLWithPath: (try? Posix.readLink("/proc/self/exe")) ?? CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("autotrack-collector").path

func fail(_ text: String) -> Never {
    Benchmark.complain(text)
    exit(1)
}

/// `RssAnon` of `pid` in MiB; nil once it is gone.
func anonymousMiB(_ pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") }) else { return nil }
    return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 / 1024 }
}

/// One run on a fresh collector: `connections` clients sending `each` snapshots at once; MiB
/// above idle at the peak and at rest one second later.
func run(connections: Int, each: Int) -> (peak: Int, rest: Int) {
    let dir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("snapshot-memory-\(UUID().uuidString.prefix(8))")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let output = Pipe()
    let process: ChildProgram
    do {
        process = try ChildProgram(
            collector, arguments: ["serve", "--listen", "127.0.0.1:0", "--db", dir.appendingPathComponent("events.sqlite").path, "--accept-snapshots"],
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor), standardError: .discarded)
        try output.fileHandleForWriting.close()
    } catch {
        fail("cannot start \(collector): \(error); build it first (swift build -c release)")
    }
    defer {
        process.terminate()
        process.waitForExit()
    }
    var line: [UInt8] = []
    while let byte = try? output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
    guard let port = String(decoding: line, as: UTF8.self).split(separator: ":").last.flatMap({ UInt16($0) }) else {
        fail("\(collector) did not say where it listens: \(String(decoding: line, as: UTF8.self))")
    }
    let pid = process.pid
    Posix.sleep(.milliseconds(500))
    let idle = anonymousMiB(pid) ?? 0
    let peak = Atomic<Int>(idle)
    let done = Atomic<Bool>(false)
    let watcher = Thread {
        while !done.load(ordering: .relaxed), let now = anonymousMiB(pid) {  // bounded by the run
            if now > peak.load(ordering: .relaxed) { peak.store(now, ordering: .relaxed) }
            Posix.sleep(.milliseconds(5))
        }
    }
    watcher.start()
    var generator = SystemRandomNumberGenerator()
    let png = SnapshotUpload.pngSignature + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 1, 64, 0, 0, 0, 200]
        + (0..<pictureBytes).map { _ in UInt8.random(in: 0...255, using: &generator) }
    let failures = Mutex<[String]>([])
    let finished = (0..<connections).map { _ in DispatchSemaphore(value: 0) }
    for (i, semaphore) in finished.enumerated() {
        Thread {
            defer { semaphore.signal() }
            do {
                let c = try ATLPConnection(
                    to: SocketAddress(host: "127.0.0.1", port: port), hello: Hello(appKey: "app\(i)", appVersion: "1.0"), timeout: .seconds(120))
                for j in 0..<each {
                    _ = try c.sendSnapshot(
                        SnapshotUpload(
                            page: "Page\(j)", capturedAt: 1, width: 320, height: 200, png: png,
                            tree: JSONObject([("type", "Window"), ("path", .string("Page\(j)")), ("frame", [0, 0, 320, 200])])))
                }
                c.close()
            } catch {
                failures.withLock { $0.append("connection \(i): \(error)") }
            }
        }.start()
    }
    for s in finished { s.wait() }
    Posix.sleep(.seconds(1))
    let rest = anonymousMiB(pid) ?? 0
    done.store(true, ordering: .relaxed)
    if let first = failures.withLock({ $0.first }) { fail("a client failed: \(first)") }
    return (peak.load(ordering: .relaxed) - idle, rest - idle)
}

Benchmark.start("snapshot-memory-bench: RssAnon of autotrack-collector above idle, MiB")
let connections = quick ? 4 : 8
let each = quick ? 2 : 3
let one = run(connections: 1, each: 1)
let many = run(connections: connections, each: each)
print("  frame \(Benchmark.fixed(Double(pictureBytes) * 4 / 3 / 1_048_576, 1)) MiB; budget 64 MiB")
print("  baseline, 1 connection x 1 snapshot: peak \(one.peak), at rest \(one.rest)")
print("  figure, \(connections) connections x \(each) snapshots: peak \(many.peak), at rest \(many.rest)")
print("  ratio of the peaks: \(Benchmark.ratio(Double(many.peak), to: Double(max(one.peak, 1))))")
