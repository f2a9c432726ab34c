// http-bench: the HTTP server's requests per second on loopback, against a bare-socket baseline
// measured in the same run.
//
//   swift run -c release http-bench            (~20 s)
//   swift run -c release http-bench --quick    (~5 s)
//
// Each round sends the same GET to (a) HTTPService with a handler that returns a fixed 200-byte
// body, and (b) a bare loopback socket whose thread reads a request's bytes and writes back as
// many bytes as the server's response, with no parsing. Two shapes: one request in flight per
// connection (keep-alive, 4 connections in parallel), and 16 pipelined. Ratio = HTTP / baseline.
import BenchmarkSupport
import Foundation
import HTTPServer
import SystemCalls

ToolArguments(
    "http-bench",
    usage: Benchmark.usage(
        "http-bench",
        measures: """
            The HTTP server's requests per second on 127.0.0.1 (4 keep-alive connections, one request
            in flight each, then 16 pipelined) against a bare loopback socket carrying the same bytes.
            """,
        quick: "~5 s instead of ~20 s", example: "swift run -c release http-bench --quick")
).read()

let requestsPerConnection = Benchmark.isQuick ? 5_000 : 25_000
let connections = 4
let request = Array("GET /api/pages?app=shop HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\nAccept: */*\r\n\r\n".utf8)
let body = [UInt8](repeating: UInt8(ascii: "j"), count: 200)

struct Fixed: HTTPHandler {
    func respond(to request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: .ok, contentType: "application/json", body: body) }
}

/// Sends `count` requests on a fresh connection to `address`, `depth` in flight, reading
/// `responseBytes` back per request; returns when all are answered.
func drive(_ address: SocketAddress, count: Int, depth: Int, responseBytes: Int) throws {
    let fd = try Posix.socket(address)
    defer { Posix.close(fd) }
    try Posix.connect(fd, address, timeout: .seconds(5))
    try Posix.setNoDelay(fd)
    var burst: [UInt8] = []
    for _ in 0..<depth { burst += request }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var sent = 0
    while sent < count {
        let n = min(depth, count - sent)
        try Posix.sendAll(fd, n == depth ? burst : Array(burst[0..<(n * request.count)]))
        sent += n
        var want = n * responseBytes
        while want > 0 {
            let r = try Posix.withMutableBytes(&buffer) { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }
            guard case .processed(let got) = r, got > 0 else { fatalError("the server closed the connection") }
            want -= got
        }
    }
}

/// Runs `connections` drivers in parallel; requests per second.
func measure(_ address: SocketAddress, depth: Int, responseBytes: Int) -> Double {
    let elapsed = Benchmark.wallTime {
        DispatchQueue.concurrentPerform(iterations: connections) { _ in
            do { try drive(address, count: requestsPerConnection, depth: depth, responseBytes: responseBytes) } catch {
                fatalError("\(error)")
            }
        }
    }
    return Double(connections * requestsPerConnection) / Benchmark.seconds(elapsed)
}

/// The baseline: a thread per connection that reads a request's worth of bytes and writes a
/// response's worth back, without looking at them.
func startBaseline(responseBytes: Int) throws -> SocketAddress {
    let wanted = SocketAddress(host: "127.0.0.1", port: 0)
    let listenFD = try Posix.socket(wanted)
    try Posix.bind(listenFD, wanted)
    try Posix.listen(listenFD, backlog: 64, wanted)
    let address = try Posix.localAddress(listenFD)
    let response = [UInt8](repeating: 0x41, count: responseBytes)
    Posix.startThread(name: "bench-accept") {
        while true {
            guard let (fd, _) = try? Posix.accept(listenFD) else {
                Posix.sleep(.microseconds(200))
                continue
            }
            Posix.startThread(name: "bench-echo") {
                try? Posix.setNonBlocking(fd, false)
                try? Posix.setNoDelay(fd)
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                var pending = 0
                while true {
                    guard let r = try? Posix.withMutableBytes(&buffer, { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }),
                        case .processed(let n) = r, n > 0
                    else { break }
                    pending += n
                    var out: [UInt8] = []
                    while pending >= request.count {
                        pending -= request.count
                        out += response
                    }
                    if !out.isEmpty { try? Posix.sendAll(fd, out) }
                }
                Posix.close(fd)
            }
        }
    }
    try Posix.setNonBlocking(listenFD)
    return address
}

let server = HTTPService(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), handler: Fixed())
let address = try server.start()
// The size of the server's response (its Date has a fixed length).
let probe = try Posix.socket(address)
try Posix.connect(probe, address, timeout: .seconds(5))
try Posix.sendAll(probe, request)
var probeBuffer = [UInt8](repeating: 0, count: 4096)
var responseBytes = 0
while !probeBuffer[0..<responseBytes].reversed().starts(with: body) {  // one write on loopback: one read, mostly
    let r = try Posix.withMutableBytes(&probeBuffer) { (raw) throws(PosixError) -> IOResult in
        try Posix.read(probe, into: UnsafeMutableRawBufferPointer(rebasing: raw[responseBytes...]))
    }
    guard case .processed(let n) = r, n > 0 else { fatalError("no response from the server") }
    responseBytes += n
}
Posix.close(probe)
let baseline = try startBaseline(responseBytes: responseBytes)
Benchmark.start("http-bench: response \(responseBytes) bytes; \(connections) connections × \(requestsPerConnection) requests")
for depth in [1, 16] {
    let http = measure(address, depth: depth, responseBytes: responseBytes)
    let bare = measure(baseline, depth: depth, responseBytes: responseBytes)
    print(
        "\(Benchmark.column(String(depth), width: 2)) in flight: HTTPService \(Benchmark.fixed(http, 0)) requests/s, "
            + "bare socket \(Benchmark.fixed(bare, 0)) requests/s, ratio HTTP/baseline \(Benchmark.ratio(http, to: bare, digits: 3))")
}
server.stop()
