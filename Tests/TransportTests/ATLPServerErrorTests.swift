import ATLPServer
import ATLPWire
import EventModel
import Foundation
import Synchronization
import Testing

@testable import ATLPClient

/// Every ERR code of wire.md §2, provoked through a real socket.
@Suite struct ATLPServerErrorTests {
    @Test func badFrame() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        try c.sendBytes(Array("07 HELLO".utf8))
        expectError(c, .badFrame)
        // A payload with a raw LF breaks rule 1 too.
        let d = try ATLPConnection(to: address, hello: testHello)
        try d.sendBytes(Array("8 PING {\n}".utf8))
        expectError(d, .badFrame)
    }

    @Test func frameTooLargeBeforeThePayload() throws {
        let (server, address) = try startServer(maxFrame: 4096)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        // Above the SNAPSHOT maximum too (default 16 MiB): no payload byte sent at all. (Between
        // the two maxima the first 9 payload bytes decide: LargeSnapshotFrameTests.)
        try c.sendBytes(Array("\((16 << 20) + 1) ".utf8))
        expectError(c, .frameTooLarge)
        #expect(server.statistics.errors[.frameTooLarge] == 1)
    }

    @Test func helloRequiredFirstAndOnlyOnce() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        try c.send(ATLPFrame(verb: "PING"))
        expectError(c, .helloRequired)
        let u = try ATLPConnection(to: address)
        try u.send(ATLPFrame(verb: "FOO"))  // an unknown verb before HELLO is still "before HELLO"
        expectError(u, .helloRequired)
        let d = try ATLPConnection(to: address, hello: testHello)
        try d.send(ATLPFrame(verb: "HELLO", body: testHello.body))
        expectError(d, .helloRequired)
    }

    @Test func unauthorized() throws {
        let (server, address) = try startServer(TestHandler(token: "t0k"))
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        try c.send(ATLPFrame(verb: "HELLO", body: Hello(appKey: "shop", token: "wrong").body))
        expectError(c, .unauthorized)
        let ok = try ATLPConnection(to: address, hello: Hello(appKey: "shop", token: "t0k"))
        try ok.ping()
    }

    @Test func badJSONKeepsTheConnection() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        for body in ["[1]", "{\"a\":", "\"text\"", "{} {}"] {
            try c.sendBytes(wire("EVENTS \(body)"))
            expectError(c, .badJSON)
        }
        // Before HELLO too (the HELLO verb is right; its body is not an object).
        let d = try ATLPConnection(to: address)
        try d.sendBytes(wire("HELLO [1]"))
        let reply = try d.receive()
        #expect(reply["code"] == "bad-json")
        try d.hello(testHello)
    }

    @Test func unknownVerbKeepsTheConnection() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        try c.send(ATLPFrame(verb: "FETCH"))
        expectError(c, .unknownVerb)
        try c.send(ATLPFrame(verb: "ACK"))  // a collector's verb, not a request
        expectError(c, .unknownVerb)
        try c.sendBytes(wire("events {}"))
        expectError(c, .unknownVerb)
    }

    @Test func forbiddenWithoutTheAdminToken() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        try c.send(ATLPFrame(verb: "PUBLISH", body: obj(["rules": []])))
        expectError(c, .forbidden)
        let admin = try ATLPConnection(to: address, hello: Hello(appKey: "shop", token: "admin-secret"))
        #expect(try admin.publish(rules: [["id": "r1"], ["id": "r2"]]) == 2)
        #expect(handler.state.withLock { $0.published.count } == 2)
    }

    @Test func badRequestForMissingFields() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        for body in ["{}", "{\"batch\":\"b\"}", "{\"events\":[]}", "{\"batch\":[],\"events\":[]}", "{\"batch\":\"b\",\"events\":{}}"] {
            try c.sendBytes(wire("EVENTS \(body)"))
            expectError(c, .badRequest)
        }
        try c.send(ATLPFrame(verb: "EVENTS", body: nil))
        expectError(c, .badRequest)
        // Zero events is a valid (empty) batch.
        #expect(try c.sendEvents(batch: "empty", events: []) == BatchAck(batch: "empty", stored: 0, duplicates: 0, rejected: 0))
        // HELLO checks: protocol and appKey.
        let d = try ATLPConnection(to: address)
        try d.sendBytes(wire("HELLO {\"protocol\":2,\"appKey\":\"shop\"}"))
        expectErrorBeforeHello(d, .badRequest)
        try d.sendBytes(wire("HELLO {\"protocol\":1,\"appKey\":\"\"}"))
        expectErrorBeforeHello(d, .badRequest)
        // The handler's own bad-request (a rule that is not an object).
        let admin = try ATLPConnection(to: address, hello: Hello(appKey: "shop", token: "admin-secret"))
        try admin.send(ATLPFrame(verb: "PUBLISH", body: obj(["rules": [1]])))
        expectError(admin, .badRequest)
    }

    private func expectErrorBeforeHello(_ c: ATLPConnection, _ code: ATLPErrorCode) {
        let reply = try? c.receive()
        #expect(reply?["code"]?.stringValue == code.rawValue, "\(String(describing: reply))")
    }

    @Test func tooManyConnectionsIsRefusedClearly() throws {
        let (server, address) = try startServer(maxConnections: 2)
        defer { server.stop() }
        let a = try ATLPConnection(to: address, hello: testHello)
        let b = try ATLPConnection(to: address, hello: testHello)
        let c = try ATLPConnection(to: address)
        expectError(c, .tooManyConnections)
        // A client that sends its HELLO at once still reads the reason, not a reset.
        for _ in 0..<5 {
            let eager = try ATLPConnection(to: address)
            try? eager.send(ATLPFrame(verb: "HELLO", body: testHello.body))
            expectError(eager, .tooManyConnections)
        }
        try a.ping()
        try b.ping()
        #expect(server.statistics.refused == 6)
        #expect(server.statistics.open == 2)
        // A slot freed is a slot available.
        a.close()
        #expect(eventually { server.statistics.open == 1 })
        let d = try ATLPConnection(to: address, hello: testHello)
        try d.ping()
    }

    @Test func everySpecCodeIsCovered() {
        // The list above provokes each of these; this pins the table's connection column.
        let closing = ATLPErrorCode.specCodes.filter(\.closesConnection).map(\.rawValue)
        #expect(closing == ["bad-frame", "frame-too-large", "hello-required", "unauthorized"])
        let open = ATLPErrorCode.specCodes.filter { !$0.closesConnection }.map(\.rawValue)
        #expect(open == ["bad-json", "unknown-verb", "forbidden", "bad-request"])
    }
}
