// md5-bench: MD5 throughput on 8 KiB and 64-byte inputs, as a ratio to OpenSSL's MD5 measured in
// the same run with `openssl speed -elapsed -seconds 1 -bytes N md5`.
// Run: swift run -c release md5-bench [--quick]
//
// The machine is shared, so both sides are measured in alternating 1-second rounds and each
// keeps its best round: a burst of someone else's load then lowers one round, not one side.
import BenchmarkSupport
import Foundation
import SystemCalls
import ViewIdentity

ToolArguments(
    "md5-bench",
    usage: Benchmark.usage(
        "md5-bench", measures: "MD5 throughput on 8 KiB and 64-byte inputs, as a ratio to `openssl speed md5` in the same run.",
        quick: "1 round instead of 5", example: "swift run -c release md5-bench --quick")
).read()

let rounds = Benchmark.rounds(quick: 1, full: 5)
let ourSeconds = 1.0
let openSSLSeconds = 1
let sizes = [64, 8192]

/// One-shot digests of a `size`-byte buffer for about `seconds`, as OpenSSL's speed test does.
func ourThroughput(size: Int, seconds: Double) -> (mbPerSecond: Double, check: UInt64) {
    let input = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    var sink: UInt64 = 0
    var digest = (UInt64(0), UInt64(0))
    let clock = ContinuousClock()
    let batch = max(1, (1 << 18) / size)
    var bytes = 0
    let elapsed = Benchmark.wallTime {
        let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        input.withUnsafeBytes { raw in
            while clock.now < deadline {
                for _ in 0..<batch {
                    var h = MD5()
                    h.update(raw)
                    withUnsafeMutableBytes(of: &digest) { h.finalize(into: $0) }
                    sink &+= digest.0
                }
                bytes += batch * size
            }
        }
    }
    return (Double(bytes) / Benchmark.seconds(elapsed) / 1e6, sink)
}

enum OpenSSLProblem: Error, CustomStringConvertible {
    case missing(String), cannotRun(String), unreadable(String)
    var description: String {
        switch self {
        case .missing(let s), .cannotRun(let s), .unreadable(let s): return s
        }
    }
}

let openSSLPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// OpenSSL's MD5 throughput in MB/s for `size`-byte inputs.
func openSSLThroughput(size: Int) throws(OpenSSLProblem) -> Double {
    guard let path = openSSLPath else {
        throw .missing("openssl is not installed (looked in /usr/bin, /usr/local/bin, /bin)")
    }
    let out = Pipe()
    let process: ChildProgram
    do {
        process = try ChildProgram(
            path, arguments: ["speed", "-elapsed", "-seconds", String(openSSLSeconds), "-bytes", String(size), "md5"],
            standardOutput: .descriptor(out.fileHandleForWriting.fileDescriptor), standardError: .discarded)
        try out.fileHandleForWriting.close()
    } catch {
        throw .cannotRun("could not run \(path): \(error)")
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitForExit()
    let text = String(decoding: data, as: UTF8.self)
    // "type  64 bytes" then "md5  123.45k" (1000s of bytes per second).
    let lines = text.split(separator: "\n")
    guard let header = lines.last(where: { $0.hasPrefix("type") }),
        let row = lines.last(where: { $0.hasPrefix("md5") })
    else { throw .unreadable("could not read openssl's table:\n\(text)") }
    let columns = header.split(separator: " ").compactMap { Int($0) }
    let values = row.split(separator: " ").dropFirst().compactMap { Double($0.dropLast()) }
    guard let i = columns.firstIndex(of: size), i < values.count else {
        throw .unreadable("openssl's table has no \(size)-byte column:\n\(text)")
    }
    return values[i] * 1000 / 1e6
}

Benchmark.start("md5-bench: one-shot MD5 digests, MB/s (10^6 bytes/s), best of \(rounds) round(s)")
var ours: [Int: Double] = [:]
var theirs: [Int: Double] = [:]
var problem: OpenSSLProblem?
var check: UInt64 = 0
for _ in 0..<rounds {
    for size in sizes {
        let r = ourThroughput(size: size, seconds: ourSeconds)
        check &+= r.check
        ours[size] = max(ours[size] ?? 0, r.mbPerSecond)
        guard problem == nil else { continue }
        do {
            theirs[size] = max(theirs[size] ?? 0, try openSSLThroughput(size: size))
        } catch {
            problem = error
        }
    }
}
if let problem {
    print("baseline: none — \(problem); our figures alone:")
} else {
    print("baseline: \(openSSLPath!) speed -elapsed -seconds \(openSSLSeconds) -bytes N md5")
}
print("size      ours MB/s   openssl MB/s   ratio (ours/openssl)")
for size in sizes {
    let sizeText = Benchmark.label("\(size) B", width: 8)
    let mine = ours[size] ?? 0
    if problem == nil, let other = theirs[size] {
        print(sizeText + "  " + Benchmark.fixed(mine, 1, width: 10) + "   " + Benchmark.fixed(other, 1, width: 12) + "   " + Benchmark.ratio(mine, to: other))
    } else {
        print(sizeText + String(format: "  %10.1f   %12@   -", mine, "n/a"))
    }
}
print("checksum \(check)")
