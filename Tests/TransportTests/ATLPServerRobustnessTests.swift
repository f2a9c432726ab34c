import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import TestSupport
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// The server under hostile, slow, idle and numerous clients, and its graceful stop.
@Suite struct ATLPServerRobustnessTests {
    @Test func garbageNeverCrashesTheServerNorDisturbsAnotherConnection() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 2048)
        defer { server.stop() }
        let victim = try ATLPConnection(to: address, hello: testHello)
        var rng = SeededGenerator(seed: 0xA7A7_2026)
        let valid = ATLPFrame(verb: "EVENTS", body: obj(["batch": "g", "events": [event("g1").json]])).encoded
        for round in 0..<150 {
            let hostile = try ATLPConnection(to: address, timeout: .seconds(5))
            var bytes: [UInt8]
            switch round % 5 {
            case 0:  // random bytes
                bytes = (0..<Int.random(in: 1...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1:  // a valid conversation, truncated anywhere
                let stream = wire("HELLO {\"protocol\":1,\"appKey\":\"fuzz\"}") + valid
                bytes = Array(stream.prefix(Int.random(in: 0...stream.count, using: &rng)))
            case 2:  // a valid conversation with one byte changed
                var stream = wire("HELLO {\"protocol\":1,\"appKey\":\"fuzz\"}") + valid + wire("PING {}")
                stream[Int.random(in: 0..<stream.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                bytes = stream
            case 3:  // digits and spaces only
                bytes = (0..<Int.random(in: 1...40, using: &rng)).map { _ in Array("0123456789 ".utf8).randomElement(using: &rng)! }
            default:  // a valid HELLO, then random payloads in valid length prefixes
                bytes = wire("HELLO {\"protocol\":1,\"appKey\":\"fuzz\"}")
                for _ in 0..<Int.random(in: 1...5, using: &rng) {
                    let p = (0..<Int.random(in: 1...60, using: &rng)).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
                    bytes += Array("\(p.count) ".utf8) + p
                }
            }
            try? hostile.sendBytes(bytes)
            if round % 2 == 0 {  // sometimes read what comes back, sometimes just go away
                hostile.finishSending()
                for _ in 0..<10 { if (try? hostile.receive()) == nil { break } }
            }
            // The other connection is served exactly as before, every round.
            try victim.ping()
            let ack = try victim.sendEvents(batch: .int(Int64(round)), events: [event("victim-\(round)").json])
            #expect(ack == BatchAck(batch: .int(Int64(round)), stored: 1, duplicates: 0, rejected: 0))
        }
        #expect(eventually { server.statistics.open == 1 })
        let fresh = try ATLPConnection(to: address, hello: testHello)
        try fresh.ping()
    }

    /// With epoll (the default) and with the poll(2) fallback.
    @Test(arguments: [true, false])
    func aThousandConcurrentConnections(useEpoll: Bool) throws {
        let limit = Posix.raiseFileLimit(to: 4096)
        let count = min(1000, (limit - 100) / 2)  // each connection costs a client and a server fd here
        #expect(count == 1000, "RLIMIT_NOFILE is \(limit): only \(count) connections possible in one process")
        let (server, address) = try startServer(maxConnections: 2000, useEpoll: useEpoll)
        defer { server.stop() }
        var connections: [ATLPConnection] = []
        for _ in 0..<count { connections.append(try ATLPConnection(to: address, timeout: .seconds(20))) }
        // Pipelined across connections: every HELLO out, then every WELCOME in.
        for c in connections { try c.send(ATLPFrame(verb: "HELLO", body: testHello.body)) }
        for c in connections { #expect(try c.receive().verb == "WELCOME") }
        #expect(server.statistics.open == count)
        for (i, c) in connections.enumerated() {
            try c.send(ATLPFrame(verb: "EVENTS", body: obj(["batch": .int(Int64(i)), "events": [event("k\(i)").json]])))
        }
        for (i, c) in connections.enumerated() {
            let reply = try c.receive()
            #expect(reply["batch"] == .int(Int64(i)))
            #expect(reply["stored"] == 1)
        }
        for c in connections { try c.send(ATLPFrame(verb: "PING")) }
        for c in connections { #expect(try c.receive() == ATLPFrame(verb: "PONG")) }
        // One at a time too, while the 999 others sit idle.
        for c in connections.prefix(100) { try c.ping() }
        #expect(server.statistics.open == count)
    }

    @Test func aSlowReaderDoesNotStallOthers() throws {
        let handler = TestHandler(rulesFiller: 48 << 10)
        let (server, address) = try startServer(handler, maxOutputBytes: 1 << 20)
        defer { server.stop() }
        let slow = try ATLPConnection(to: address, hello: testHello, timeout: .seconds(20))
        let requests = 100  // about 5 MiB of RULES replies, not read until the end
        var burst: [UInt8] = []
        for _ in 0..<requests { burst += ATLPFrame(verb: "CONFIG").encoded }
        try slow.sendBytes(burst)
        let fast = try ATLPConnection(to: address, hello: testHello)
        for i in 0..<50 {
            try fast.ping()
            _ = try fast.sendEvents(batch: .int(Int64(i)), events: [event("fast-\(i)").json])
        }
        // The slow reader loses nothing: every reply arrives, in order.
        for _ in 0..<requests {
            let reply = try slow.receive()
            #expect(reply.verb == "RULES")
        }
        try slow.ping()
    }

    @Test func aSlowCommitOnOneConnectionDoesNotStallAnother() throws {
        let gate = DispatchSemaphore(value: 0)
        let handler = TestHandler(gate: gate)
        let (server, address) = try startServer(handler)
        defer { server.stop() }
        let blocked = try ATLPConnection(to: address, hello: testHello)
        try blocked.send(ATLPFrame(verb: "EVENTS", body: obj(["batch": "slow", "events": [event("slow").json]])))
        #expect(eventually { handler.entered.withLock { $0 } == 1 })
        let other = try ATLPConnection(to: address, hello: testHello)
        for _ in 0..<20 {
            try other.ping()
            _ = try other.config()
        }
        gate.signal()
        #expect(try blocked.receive()["batch"] == "slow")
    }

    @Test func idleConnectionsAreClosed() throws {
        let (server, address) = try startServer(idleTimeout: .milliseconds(200))
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        do {
            let frame = try c.receive()  // nothing sent: the server closes it when idle
            Issue.record("unexpected \(frame)")
        } catch {
            #expect(error.code == .closed)
        }
        #expect(server.statistics.idleClosed == 1)
    }

    @Test func gracefulStopAnswersWhatWasRead() throws {
        let gate = DispatchSemaphore(value: 0)
        let handler = TestHandler(gate: gate)
        let (server, address) = try startServer(handler)
        let c = try ATLPConnection(to: address, hello: testHello)
        // An EVENTS stuck in a slow commit, and a PING read behind it, in one write.
        try c.sendBytes(
            ATLPFrame(verb: "EVENTS", body: obj(["batch": "last", "events": [event("s1").json]])).encoded
                + ATLPFrame(verb: "PING").encoded)
        #expect(eventually { handler.entered.withLock { $0 } == 1 })
        let stopped = DispatchSemaphore(value: 0)
        Thread { server.stop(); stopped.signal() }.start()
        #expect(eventually { (try? ATLPConnection(to: address, timeout: .seconds(1))) == nil })  // no longer accepting
        gate.signal()
        #expect(try c.receive() == ATLPFrame(verb: "ACK", body: obj(["batch": "last", "stored": 1, "duplicates": 0, "rejected": 0])))
        #expect(try c.receive() == ATLPFrame(verb: "PONG"))
        #expect(throws: TransportError.self) { try c.receive() }
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(handler.stored == 1)
    }

    static let servingChildVariable = "ATLP_SERVING_CHILD"
    static let servingMarker = "ATLP-CHILD-SERVING"

    /// The server of `runStopsGracefullyOnSIGTERM`, as a process of its own: a signal sent to
    /// a test runner would reach whatever else in it waits for signals (an in-process `tail`).
    /// It writes its port to the file named by the variable, then says it serves.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[servingChildVariable] != nil, "runs only as the child process"))
    func servingChild() throws {
        let portFile = ProcessInfo.processInfo.environment[Self.servingChildVariable]!
        let server = ATLPService(
            configuration: ATLPServerConfiguration(host: "127.0.0.1", port: 0, stopGracePeriod: .seconds(2)),
            handler: TestHandler())
        try server.run { address in
            try? "\(address.port)".write(toFile: portFile, atomically: true, encoding: .utf8)
            FileHandle.standardOutput.write(Data((Self.servingMarker + "\n").utf8))  // unbuffered
        }
    }

    @Test func runStopsGracefullyOnSIGTERM() throws {
        let portFile = Fixtures.temporaryDirectory("atlp-sigterm").appendingPathComponent("port").path
        let child = try #require(
            try ChildTest.start("servingChild", variable: Self.servingChildVariable, value: portFile, marker: Self.servingMarker),
            "the child never served")
        defer { _ = child.stop(within: .seconds(5)) }
        let port = try #require(UInt16(try String(contentsOfFile: portFile, encoding: .utf8)))
        let address = SocketAddress(host: "127.0.0.1", port: port)
        let c = try ATLPConnection(to: address, hello: testHello)
        try c.ping()
        child.send(SIGTERM)
        // run() returned (the test passed, so the runner exits 0): SIGTERM's default action,
        // death by the signal, was not taken while it served.
        #expect(child.waitForExit(within: .seconds(30)) == .exited(0))
        #expect(throws: TransportError.self) { try c.receive() }
        #expect(throws: TransportError.self) { try ATLPConnection(to: address, timeout: .seconds(1)) }
    }

    #if DEBUG
    @Test func shortWritesShortReadsAndResetsOnTheClient() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        let fd = c.fileDescriptor
        FaultInjection.inject(fd: fd, reads: Array(repeating: .short(1), count: 30), writes: Array(repeating: .short(3), count: 30))
        try c.ping()
        let ack = try c.sendEvents(batch: "short", events: [event("sh").json])
        #expect(ack.stored == 1)
        FaultInjection.inject(fd: fd, reads: [.error(ECONNRESET)])
        do {
            try c.ping()
            Issue.record("no error")
        } catch {
            #expect(error.code == .system)
            #expect(error.description == "read(fd \(fd)): Connection reset by peer (errno 104)")
        }
        FaultInjection.inject(fd: fd, reads: [.wouldBlock])
        do {
            _ = try c.receive()
            Issue.record("no error")
        } catch {
            #expect(error.code == .timedOut)
        }
    }
    #endif
}
