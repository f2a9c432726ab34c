// md5-bench: MD5 throughput on 8 KiB and 64-byte inputs, as a ratio to OpenSSL's MD5 measured in
// the same run (`openssl speed -elapsed -seconds 2 md5`). Run: swift run -c release md5-bench [--quick]
import Foundation
import ViewIdentity

let quick = CommandLine.arguments.contains("--quick")
let secondsPerSize: Double = quick ? 0.5 : 2

/// One-shot digests of a `size`-byte buffer for about `seconds`, as OpenSSL's speed test does.
func ourThroughput(size: Int, seconds: Double) -> (mbPerSecond: Double, check: UInt64) {
    let input = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    var sink: UInt64 = 0
    var digest = (UInt64(0), UInt64(0))
    let clock = ContinuousClock()
    let batch = max(1, (1 << 20) / size)
    var bytes = 0
    let start = clock.now
    let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
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
    let elapsed = start.duration(to: clock.now)
    let secs = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(bytes) / secs / 1e6, sink)
}

/// OpenSSL's figures in MB/s by block size, or nil (with the reason) when it cannot be run.
func openSSLThroughput(seconds: Int) -> (figures: [Int: Double]?, note: String) {
    let candidates = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        return (nil, "openssl is not installed (looked in \(candidates.joined(separator: ", ")))")
    }
    var figures: [Int: Double] = [:]
    // The full run is the command of record; --quick asks for the two sizes alone.
    let runs: [[String]] =
        quick
        ? [["speed", "-elapsed", "-seconds", "1", "-bytes", "64", "md5"],
            ["speed", "-elapsed", "-seconds", "1", "-bytes", "8192", "md5"]]
        : [["speed", "-elapsed", "-seconds", String(seconds), "md5"]]
    for args in runs {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return (nil, "could not run \(path): \(error.localizedDescription)")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        // "type  16 bytes  64 bytes …" then "md5  123.45k  …" (1000s of bytes per second).
        let lines = text.split(separator: "\n")
        guard let header = lines.last(where: { $0.hasPrefix("type") }),
            let row = lines.last(where: { $0.hasPrefix("md5") })
        else { return (nil, "could not read openssl's table:\n\(text)") }
        let sizes = header.split(separator: " ").compactMap { Int($0) }
        let values = row.split(separator: " ").dropFirst().compactMap { Double($0.dropLast()) }
        for (size, kilobytes) in zip(sizes, values) { figures[size] = kilobytes * 1000 / 1e6 }
    }
    return (figures, "openssl \(path) speed, \(quick ? 1 : seconds) s per size")
}

print("md5-bench: one-shot MD5 digests, MB/s (10^6 bytes/s)\(quick ? " [quick]" : "")")
// Ours is measured half before and half after OpenSSL and averaged, so that a change in the
// load of a shared machine during the run weighs on both sides alike.
var check: UInt64 = 0
var before: [Int: Double] = [:]
for size in [64, 8192] {
    let r = ourThroughput(size: size, seconds: secondsPerSize / 2)
    check &+= r.check
    before[size] = r.mbPerSecond
}
let openssl = openSSLThroughput(seconds: Int(secondsPerSize))
var rows: [(Int, Double)] = []
for size in [64, 8192] {
    let r = ourThroughput(size: size, seconds: secondsPerSize / 2)
    check &+= r.check
    rows.append((size, (before[size]! + r.mbPerSecond) / 2))
}
print("baseline: \(openssl.note)")
print("size      ours MB/s   openssl MB/s   ratio (ours/openssl)")
for (size, ours) in rows {
    let sizeText = "\(size) B".padding(toLength: 8, withPad: " ", startingAt: 0)
    if let theirs = openssl.figures?[size] {
        print(String(format: "%@  %10.1f   %12.1f   %.2f", sizeText, ours, theirs, ours / theirs))
    } else {
        print(String(format: "%@  %10.1f   %12@   -", sizeText, ours, "n/a"))
    }
}
if openssl.figures == nil { print("(no ratio: \(openssl.note))") }
print("checksum \(check)")
