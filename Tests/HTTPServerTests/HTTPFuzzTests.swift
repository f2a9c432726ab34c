import HTTPServer
import Synchronization
import SystemCalls
import Testing
import TestSupport

/// Random and damaged input never crashes the server, never reaches the handler as anything but
/// a well-formed request, and always gets either nothing or a well-formed response.
@Suite(.timeLimit(.minutes(5))) struct HTTPFuzzTests {
    @Test func randomBytesAndMutatedRequestsNeverBreakTheServer() throws {
        let routes = TestRoutes()
        let (server, address) = try startServer(routes) {
            $0.headerTimeout = .milliseconds(300)
            $0.maxHeaderBytes = 2048
            $0.maxBodyBytes = 512
        }
        defer { server.stop() }
        var random = SeededGenerator(seed: 0x4854_5450)
        let valid = Array((get("/echo?q=1", "Cookie: a=b\r\n") + post("/echo", "hello world")).utf8)
        for round in 0..<300 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:  // pure noise
                bytes = (0..<Int.random(in: 1...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1:  // a valid request with a few bytes changed, cut or repeated
                bytes = valid
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let i = Int.random(in: 0..<bytes.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: bytes[i] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes.removeSubrange(i..<min(bytes.count, i + Int.random(in: 1...8, using: &random)))
                    default: bytes.insert(contentsOf: bytes[i..<min(bytes.count, i + 8)], at: i)
                    }
                    if bytes.isEmpty { bytes = valid }
                }
            default:  // request-shaped noise from HTTP's own alphabet
                let alphabet = Array("GET POST / HTTP/1.1 1.0 \r\n \r\n: Host Content-Length 0 9 , \t \u{0} Transfer-Encoding chunked".utf8)
                bytes = (0..<Int.random(in: 1...400, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            }
            let c = try RawHTTPClient(address, timeout: .seconds(5))
            try? c.send(bytes)
            try c.setReceiveTimeout(.seconds(2))
            // Whatever comes back parses as responses (the client throws on anything else) until the end.
            for _ in 0..<4 {
                guard let r = try? c.response() else { break }
                #expect((100...599).contains(r.status))
            }
            c.close()
        }
        // Still serving, and everything the handler saw was a request it could take.
        let c = try RawHTTPClient(address)
        #expect(try c.exchange(get("/echo")).status == 200)
        // (A mutated method is still a token, which HTTP lets through to the handler.)
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        for line in routes.seen.withLock({ $0 }) {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            #expect(parts.count == 2 && parts[0].allSatisfy(tchar.contains), "\(line)")
            #expect(parts.count == 2 && (parts[1].hasPrefix("/") || parts[1] == "*"), "\(line)")
            #expect(line.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F || $0 == 0x20 }, "\(line)")
        }
    }
}
