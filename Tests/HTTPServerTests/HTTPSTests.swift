import ATLPTLS
import HTTPServer
import SystemCalls
import Testing
import TestSupport

/// HTTPS through the same secure-channel plug-in as ATLP (OpenSSL from ATLPTLS), with a real
/// certificate made by the openssl command.
@Suite(.timeLimit(.minutes(3))) struct HTTPSTests {
    @Test func requestsGoThroughTLSKeepAliveAndPipelining() throws {
        let cert = try TestCertificate()
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let (server, address) = try startServer(security: context.channels)
        defer { server.stop() }
        let trust = try TLSContext.client(trusting: cert.certificate).channels
        let c = try RawHTTPClient(address, security: trust)
        #expect(try c.exchange(get("/secure")).text == "secure")
        try c.send(get("/echo/1") + post("/echo/2", "over tls") + get("/big?n=70000"))
        #expect(try c.response().text == "GET /echo/1 - 0")
        #expect(try c.response().text == "POST /echo/2 - 8\nover tls")
        #expect(try c.response().body.count == 70000)
        // Malformed input over TLS is refused the same way.
        #expect(try c.exchange("GET /a HTTP/1.1\r\n\r\n").status == 400)
        #expect(c.isClosedByServer())
        #expect(server.statistics.accepted == 1)
    }

    @Test func aHandshakeThatNeverFinishesIsClosedAtTheHeadDeadline() throws {
        let cert = try TestCertificate()
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let (server, address) = try startServer(TestRoutes(), { $0.headerTimeout = .milliseconds(400) }, security: context.channels)
        defer { server.stop() }
        let silent = try RawHTTPClient(address)
        let partial = try RawHTTPClient(address)
        try partial.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])  // the start of a ClientHello record, then nothing
        let started = ContinuousClock.now
        #expect(silent.isClosedByServer())
        #expect(partial.isClosedByServer())
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(server.statistics.headerTimeouts == 2)
    }

    @Test func plainHTTPToTheHTTPSPortIsToldSoInPlainText() throws {
        let cert = try TestCertificate()
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let (server, address) = try startServer(security: context.channels)
        defer { server.stop() }
        let plain = try RawHTTPClient(address, timeout: .seconds(5))
        let r = try plain.exchange(get("/secure"))
        #expect(r.status == 400)
        #expect(r.text.contains("https://"))
        #expect(plain.isClosedByServer())
        #expect(server.statistics.requests == 0)
        #expect(server.statistics.protocolMismatches == 1)
    }

    @Test func anHTTPSClientOnThePlainPortIsRefusedAtOnce() throws {
        let cert = try TestCertificate()
        let (server, address) = try startServer { $0.headerTimeout = .seconds(30) }
        defer { server.stop() }
        let started = ContinuousClock.now
        // The ClientHello has no line end: without looking at the first bytes this would wait 30 s.
        #expect(throws: (any Error).self) {
            _ = try RawHTTPClient(address, timeout: .seconds(10), security: TLSContext.client(trusting: cert.certificate).channels)
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(server.statistics.responses[400] == 1)
    }
}
