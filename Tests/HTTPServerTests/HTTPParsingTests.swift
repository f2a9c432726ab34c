import HTTPServer
import Synchronization
import SystemCalls
import Testing

/// Hostile and malformed requests: each gets its status, a short body of our own words, and
/// the connection closed; nothing of it reaches the handler.
@Suite(.timeLimit(.minutes(3))) struct HTTPParsingTests {
    /// Sends `request` on a new connection; the response, after which the server must close.
    func refused(_ request: [UInt8], on address: SocketAddress) throws -> RawResponse {
        let c = try RawHTTPClient(address)
        try c.send(request)
        let r = try c.response()
        #expect(r.headers["Connection"] == "close")
        #expect(r.headers["Content-Type"] == "text/plain; charset=utf-8")
        #expect(r.headers["X-Content-Type-Options"] == "nosniff")
        #expect(c.isClosedByServer())
        return r
    }

    static let malformed: [(String, Int)] = [
        ("GET /a HTTP/1.1\nHost: t\n\n", 400),  // bare LF
        ("GET /a HTTP/1.1\r\nHost: t\n\r\n", 400),  // bare LF in the head
        ("GET /a HTTP/1.1\r\nHost : t\r\n\r\n", 400),  // whitespace before the colon
        ("GET /a HTTP/1.1\r\nHost: t\r\nX-A: 1\r\n  folded\r\n\r\n", 400),  // obs-fold
        ("GET /a HTTP/1.1\r\nHost: t\r\nX-A: a\u{0}b\r\n\r\n", 400),  // NUL in a value
        ("GET /a HTTP/1.1\r\nHost: t\r\nX-A: a\rb\r\n\r\n", 400),  // bare CR in a value
        ("GET /a HTTP/1.1\r\nHost: t\r\nNoColon\r\n\r\n", 400),
        ("GET /a HTTP/1.1\r\nHost: t\r\n: empty\r\n\r\n", 400),
        ("GET /a HTTP/1.1\r\n\r\n", 400),  // no Host in 1.1
        ("GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400),
        ("GET /a HTTP/1.1\r\nHost: a/b\r\n\r\n", 400),
        ("GET /a HTTP/1.1\r\nHost: user@evil\r\n\r\n", 400),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxy", 400),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n", 400),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 1, 1\r\n\r\nx", 400),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: +5\r\n\r\nhello", 400),
        ("GET  /a HTTP/1.1\r\nHost: t\r\n\r\n", 400),  // two spaces
        ("GET /a  HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a HTTP/1.1 \r\nHost: t\r\n\r\n", 400),
        ("GET\t/a HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a\r\nHost: t\r\n\r\n", 400),  // HTTP/0.9 style
        ("G(T /a HTTP/1.1\r\nHost: t\r\n\r\n", 400),  // not a token
        ("GET a HTTP/1.1\r\nHost: t\r\n\r\n", 400),  // neither origin, absolute nor *
        ("GET * HTTP/1.1\r\nHost: t\r\n\r\n", 400),  // * only with OPTIONS
        ("GET ftp://x/a HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a\u{7F}b HTTP/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a HTTP/1.x\r\nHost: t\r\n\r\n", 400),
        ("GET /a http/1.1\r\nHost: t\r\n\r\n", 400),
        ("GET /a HTTP/11\r\nHost: t\r\n\r\n", 400),
        ("GET /a HTTP/2.0\r\nHost: t\r\n\r\n", 505),
        ("GET /a HTTP/0.9\r\nHost: t\r\n\r\n", 505),
        ("CONNECT t:443 HTTP/1.1\r\nHost: t\r\n\r\n", 501),
        ("POST /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 501),
        ("POST /a HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 501),
        ("GET /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: identity\r\n\r\n", 501),
        ("POST /a HTTP/1.1\r\nHost: t\r\n\r\n", 411),
        ("\r\n\r\n\r\n\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n", 400),  // more empty lines than we skip
    ]

    @Test(arguments: malformed)
    func aMalformedRequestGetsItsStatusAndTheConnectionCloses(_ request: String, _ status: Int) throws {
        let routes = TestRoutes()
        let (server, address) = try startServer(routes)
        defer { server.stop() }
        let r = try refused(Array(request.utf8), on: address)
        #expect(r.status == status)
        #expect(r.text.hasPrefix("\(status) "))
        #expect(routes.seen.withLock { $0 }.isEmpty)
        #expect(server.statistics.responses[status] == 1)
    }

    @Test func requestsBeforeAMalformedOneAreAnsweredFirst() throws {
        let routes = TestRoutes()
        let (server, address) = try startServer(routes)
        defer { server.stop() }
        let c = try RawHTTPClient(address)
        try c.send(get("/echo/1") + get("/echo/2") + "BAD REQUEST\r\n\r\n" + get("/echo/3"))
        #expect(try c.response().text == "GET /echo/1 - 0")
        #expect(try c.response().text == "GET /echo/2 - 0")
        #expect(try c.response().status == 400)
        #expect(c.isClosedByServer())
        #expect(routes.seen.withLock { $0 } == ["GET /echo/1", "GET /echo/2"])
    }

    @Test func bytesThatCannotStartARequestLineAreRefusedBeforeALineEnds() throws {
        let (server, address) = try startServer { $0.headerTimeout = .seconds(30) }
        defer { server.stop() }
        for start in ["\u{1}", "GET\u{0}", "{\"json\":", "\r\r"] {
            let c = try RawHTTPClient(address, timeout: .seconds(5))
            try c.send(start)  // no LF: only its first bytes can tell
            #expect(try c.response().status == 400, "\(start.debugDescription)")
        }
        // While a method may still be coming, the server waits.
        let slow = try RawHTTPClient(address, timeout: .seconds(5))
        try slow.send("\r\nPOS")
        try slow.setReceiveTimeout(.milliseconds(300))
        #expect(throws: (any Error).self) { _ = try slow.response() }
    }

    @Test func aFewEmptyLinesBeforeARequestAreSkipped() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try RawHTTPClient(address)
        #expect(try c.exchange("\r\n\r\n" + get("/echo")).status == 200)
    }

    @Test func anOversizedHeadGets431EvenWhenItNeverEnds() throws {
        let (server, address) = try startServer { $0.maxHeaderBytes = 4096 }
        defer { server.stop() }
        // Fields that fit alone but not together.
        var big = "GET /a HTTP/1.1\r\nHost: t\r\n"
        for i in 0..<100 { big += "X-Field-\(i): \(String(repeating: "v", count: 60))\r\n" }
        #expect(try refused(Array((big + "\r\n").utf8), on: address).status == 431)
        // A head that never ends: refused once it passes the limit, not at the end of the stream.
        let endless = try RawHTTPClient(address)
        try endless.send("GET /a HTTP/1.1\r\nHost: t\r\nX-Long: " + String(repeating: "a", count: 8000))
        let r = try endless.response()
        #expect(r.status == 431)
        // More fields than allowed.
        var many = "GET /a HTTP/1.1\r\nHost: t\r\n"
        for i in 0..<150 { many += "F\(i): 1\r\n" }
        #expect(try refused(Array((many + "\r\n").utf8), on: address).status == 431)
    }

    @Test func aLongRequestLineGets414() throws {
        let (server, address) = try startServer { $0.maxRequestLineBytes = 1024 }
        defer { server.stop() }
        let long = "GET /" + String(repeating: "a", count: 2000) + " HTTP/1.1\r\nHost: t\r\n\r\n"
        #expect(try refused(Array(long.utf8), on: address).status == 414)
        #expect(try RawHTTPClient(address).exchange(get("/" + String(repeating: "a", count: 900))).status == 200)
    }

    @Test func anOversizedBodyGets413BeforeItIsSent() throws {
        let (server, address) = try startServer { $0.maxBodyBytes = 1000 }
        defer { server.stop() }
        let c = try RawHTTPClient(address, timeout: .seconds(5))
        // Only the head: the answer cannot wait for 100 MB that never come.
        try c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000000\r\n\r\n")
        let r = try c.response()
        #expect(r.status == 413)
        #expect(c.isClosedByServer())
        // A number too long for any integer is too large, not malformed.
        let huge = "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999999999999999999999\r\n\r\n"
        #expect(try refused(Array(huge.utf8), on: address).status == 413)
        // Exactly the limit is fine.
        let ok = try RawHTTPClient(address).exchange(post("/echo", String(repeating: "b", count: 1000)))
        #expect(ok.status == 200)
    }

    @Test func errorBodiesNeverEchoTheRequest() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let r = try refused(Array("GET /<script>alert(1)</script> HTTP/1.1\r\nHost: t\r\nX: <b>\u{1}\r\n\r\n".utf8), on: address)
        #expect(r.status == 400)
        #expect(!r.text.contains("<"))
        #expect(r.body.count < 200)
    }
}
