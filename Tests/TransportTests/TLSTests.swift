import ATLPTLS
import ATLPWire
import EventModel
import Foundation
import SecureChannel
import Synchronization
import SystemCalls
import Testing
import TestSupport

@testable import ATLPClient
@testable import ATLPServer

@Suite struct TLSTests {
    func tlsServer(_ handler: TestHandler, _ cert: TestCertificate) throws -> (ATLPService, SocketAddress) {
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let server = ATLPService(
            configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0, maxFrame: 1 << 20), handler: handler,
            security: context.channels)
        return (server, try server.start())
    }

    @Test func requestsGoThroughTLSAndTheTokenIsChecked() throws {
        let cert = try TestCertificate()
        let handler = TestHandler(token: "secret")
        let (server, address) = try tlsServer(handler, cert)
        defer { server.stop() }
        let trust = try TLSContext.client(trusting: cert.certificate).channels
        let c = try ATLPConnection(to: address, hello: Hello(appKey: "shop", token: "secret"), security: trust)
        try c.ping()
        #expect(try c.config().etag == "e1")
        let ack = try c.sendEvents(batch: 1, events: [event("t1").json, event("t2").json])
        #expect(ack.stored == 2)
        c.close()

        let wrong = try ATLPConnection(to: address, security: trust)
        #expect(throws: TransportError.self) { try wrong.hello(Hello(appKey: "shop", token: "guess")) }
    }

    @Test func aClientThatDoesNotTrustTheCertificateOrSpeaksPlainIsRefused() throws {
        let cert = try TestCertificate()
        let other = try TestCertificate()
        let (server, address) = try tlsServer(TestHandler(), cert)
        defer { server.stop() }
        do {
            _ = try ATLPConnection(to: address, timeout: .seconds(10), security: TLSContext.client(trusting: other.certificate).channels)
            Issue.record("a certificate from an unknown authority must be refused")
        } catch let error as TransportError {
            #expect(error.code == .security)
            #expect(error.message.contains("certificate"))
        }
        // Plain ATLP to a TLS listener: told, in plain text, that TLS is expected.
        let plain = try ATLPConnection(to: address, timeout: .seconds(10))
        #expect(throws: TransportError.self) { try plain.hello(testHello) }
    }

    @Test func aPlainClientOnATLSPortAndATLSClientOnAPlainPortAreToldWhichToSpeak() throws {
        let cert = try TestCertificate()
        let logged = Mutex<[String]>([])
        let log: @Sendable (String) -> Void = { line in logged.withLock { $0.append(line) } }
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let tls = ATLPService(
            configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0), handler: TestHandler(), security: context.channels,
            log: log)
        let tlsAddress = try tls.start()
        defer { tls.stop() }
        do {
            _ = try ATLPConnection(to: tlsAddress, hello: testHello, timeout: .seconds(10))
            Issue.record("plain ATLP on a TLS port was welcomed")
        } catch {
            #expect(error.remote?.code == .tlsRequired)
            #expect(error.message.contains("the collector at \(tlsAddress) expects TLS: add --tls"))
        }
        #expect(eventually { logged.withLock { $0.contains { $0.contains("plain ATLP from 127.0.0.1:") && $0.contains("TLS port") } } })

        let plain = ATLPService(configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0), handler: TestHandler(), log: log)
        let plainAddress = try plain.start()
        defer { plain.stop() }
        do {
            _ = try ATLPConnection(
                to: plainAddress, timeout: .seconds(10), security: TLSContext.client(trusting: cert.certificate).channels)
            Issue.record("a TLS handshake with a plain port succeeded")
        } catch let error as TransportError {
            #expect(error.code == .security)
            #expect(error.message.contains("the collector at \(plainAddress) does not speak TLS on this port"))
            #expect(error.message.contains("connect without --tls"))
        }
        #expect(eventually { logged.withLock { $0.contains { $0.contains("TLS handshake from 127.0.0.1:") } } })
    }

    @Test func theShipperDeliversOverTLS() throws {
        let cert = try TestCertificate()
        let handler = TestHandler()
        let (server, address) = try tlsServer(handler, cert)
        defer { server.stop() }
        let trust = try TLSContext.client(trusting: cert.certificate).channels
        let shipper = try EventShipper(configuration: shipperConfiguration(address, spool: tempSpool()).with { $0.security = trust })
        defer { shipper.close(timeout: .zero) }
        for i in 0..<300 { try shipper.enqueue(event("tls\(i)")) }
        #expect(shipper.flush(timeout: .seconds(30)))
        #expect(handler.stored == 300)
    }
}
