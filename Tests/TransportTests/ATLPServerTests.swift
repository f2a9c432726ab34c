import ATLPWire
import EventModel
import Foundation
import SystemCalls
import Testing

@testable import ATLPClient
@testable import ATLPServer

@Suite struct ATLPServerTests {
    @Test func helloThenPingConfigEventsAndBye() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        #expect(c.welcome == Welcome(protocolVersion: 1, maxFrame: 4096, maxSnapshot: 16 << 20))
        try c.ping()
        let (etag, rules) = try c.config()
        #expect(etag == "e1")
        #expect(rules == [["id": "r1"]])
        let ack = try c.sendEvents(batch: "b1", events: [event("a").json, event("b").json, ["id": "x"]])
        #expect(ack == BatchAck(batch: "b1", stored: 2, duplicates: 0, rejected: 1))
        let again = try c.sendEvents(batch: 7, events: [event("a").json])
        #expect(again.batch == 7)
        #expect(again.duplicates == 1)
        try c.send(ATLPFrame(verb: "BYE"))
        #expect(try c.receive() == ATLPFrame(verb: "BYE"))
        #expect(throws: TransportError.self) { try c.receive() }
    }

    @Test func configWithTheCurrentEtagIsAnsweredUnchangedAndTheSampleRatePassesThrough() throws {
        let (server, address) = try startServer(TestHandler(etag: "e7", sampleRate: 0.25))
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        #expect(try c.config(etag: nil) == .changed(etag: "e7", rules: [["id": "r1"]], sampleRate: 0.25))
        #expect(try c.config(etag: "e6") == .changed(etag: "e7", rules: [["id": "r1"]], sampleRate: 0.25))
        #expect(try c.config(etag: "e7") == .unchanged(etag: "e7"))
        try c.send(ATLPFrame(verb: "CONFIG", body: JSONObject([("etag", "e7")])))
        #expect(try c.receive().description == "RULES {\"etag\":\"e7\",\"unchanged\":true}")
    }

    @Test func eventsCarrySentAtToTheHandlerAndABadOneIsABadRequest() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        _ = try c.sendEvents(batch: 1, events: [event("a").json], sentAt: 1_700_000_000_123)
        _ = try c.sendEvents(batch: 2, events: [event("b").json])
        #expect(handler.sentAts == [1_700_000_000_123, nil])
        try c.send(ATLPFrame(verb: "EVENTS", body: JSONObject([("batch", 3), ("sentAt", "yesterday"), ("events", .array([]))])))
        let err = try c.receive()
        #expect(err["code"] == "bad-request")
    }

    @Test func exactBytesOfTheSpecExample() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        try c.sendBytes(Array("20 HELLO {\"protocol\":1}".utf8))
        // No appKey: bad-request, connection stays open, and a proper HELLO is still accepted.
        let err = try c.receive()
        #expect(err.verb == "ERR")
        #expect(err["code"] == "bad-request")
        try c.sendBytes(wire("HELLO {\"protocol\":1,\"appKey\":\"shop\"}"))
        #expect(try c.receive().description == "WELCOME {\"protocol\":1,\"maxFrame\":4096,\"maxSnapshot\":16777216}")
        try c.sendBytes(Array("4 PING".utf8))
        #expect(try c.receive().description == "PONG {}")
        try c.sendBytes(Array("7 PING {}".utf8))
        try c.sendBytes(Array("8 PING  {}".utf8))
        #expect(try c.receive().description == "PONG {}")
        #expect(try c.receive().description == "PONG {}")
    }

    /// Whether this host can bind `::1` (some CI containers have IPv6 disabled).
    static let ipv6LoopbackAvailable: Bool = {
        let probe = ATLPService(configuration: ATLPServerConfiguration(host: "::1", port: 0), handler: TestHandler())
        defer { probe.stop() }
        return (try? probe.start()) != nil
    }()

    @Test(.enabled(if: ipv6LoopbackAvailable, "this host has no IPv6 loopback"))
    func ipv6Loopback() throws {
        let (server, address) = try startServer(host: "::1")
        defer { server.stop() }
        #expect(address.description.hasPrefix("[::1]:"))
        let c = try ATLPConnection(to: address, hello: testHello)
        try c.ping()
    }

    @Test func connectRefusedNamesTheAddressAndErrno() throws {
        // Bind then stop a server to learn a port nobody listens on.
        let (server, address) = try startServer()
        server.stop()
        do {
            _ = try ATLPConnection(to: address, timeout: .seconds(2))
            Issue.record("connected to a stopped server")
        } catch {
            #expect(error.code == .system)
            #expect(error.description == "connect(\(address)): Connection refused (errno 111)")
        }
    }
}
