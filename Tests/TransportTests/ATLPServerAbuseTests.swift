import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// What the audit did to the collector (issue 16, items 4 to 6), each on loopback with small
/// limits: pipelining without reading, slowloris before and during a frame, many connections
/// from one address, no file descriptors left, and token guessing.
@Suite struct ATLPServerAbuseTests {
    func configuration(_ change: (inout ATLPServerConfiguration) -> Void) -> ATLPServerConfiguration {
        var c = ATLPServerConfiguration(host: "127.0.0.1", port: 0, maxFrame: 1 << 16, idleTimeout: .seconds(30))
        change(&c)
        return c
    }

    @Test func aClientPipeliningThousandsOfRequestsWithoutReadingGetsNoMoreThanTheLimitReadAhead() throws {
        let (server, address) = try startServer(TestHandler(), configuration: configuration { $0.maxPendingRequests = 16 })
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        let ping = ATLPFrame(verb: "PING").encoded
        var burst: [UInt8] = []
        for _ in 0..<5000 { burst += ping }
        try c.sendBytes(burst)  // 45 KB: one read of the server's sees all of it
        var pongs = 0
        while pongs < 5000 {
            let reply = try c.receive()
            #expect(reply.verb == "PONG")
            pongs += 1
        }
        let stats = server.statistics
        #expect(stats.framesReceived >= 5001)
        #expect(stats.peakPendingRequests <= 16)
    }

    @Test(.timeLimit(.minutes(3)))
    func aClientPipeliningLargeAnswersWithoutReadingGetsNoMoreAnsweredThanTheOutputCapHolds() throws {
        let handler = TestHandler(rulesFiller: 16 << 10)
        let (server, address) = try startServer(handler, configuration: configuration { $0.maxOutputBytes = 256 << 10 })
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello, timeout: .seconds(20))
        try Posix.setOption(c.fileDescriptor, SOL_SOCKET, SO_RCVBUF, 64 << 10, "SO_RCVBUF")  // little kernel buffering
        let requests = 600  // 10 MiB of RULES answers if all were answered at once
        var burst: [UInt8] = []
        for _ in 0..<requests { burst += ATLPFrame(verb: "CONFIG").encoded }
        try c.sendBytes(burst)
        // Until the count holds still: then the server waits for this client to read.
        var answered = -1
        for _ in 0..<100 where answered != handler.configs.withLock({ $0 }) {
            answered = handler.configs.withLock { $0 }
            Thread.sleep(forTimeInterval: 0.3)
        }
        // The server holds at most the cap plus one answer; the kernel's socket buffers hold the
        // rest of what was answered.
        #expect(answered < requests)
        #expect(server.statistics.peakUnsentBytes <= (256 << 10) + (17 << 10))
        // Then every answer comes (read raw: parsing 10 MiB of JSON is slow in a debug build).
        let rules: JSONValue = ["id": "r1", "filler": .string(String(repeating: "x", count: 16 << 10))]
        let answerSize = ATLPReply.rules(etag: "e1", rules: [rules]).wireFrame.encoded.count
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        for _ in 0..<100_000 where received < requests * answerSize {
            let result = try buffer.withUnsafeMutableBytes { try Posix.read(c.fileDescriptor, into: $0) }
            guard case .processed(let n) = result, n > 0 else { break }
            received += n
        }
        #expect(received == requests * answerSize)
        try c.ping()
    }

    @Test func aClientThatTricklesItsHelloIsToldAndClosedAtTheHelloDeadline() throws {
        let (server, address) = try startServer(TestHandler(), configuration: configuration { $0.helloTimeout = .milliseconds(300) })
        defer { server.stop() }
        let c = try ATLPConnection(to: address, timeout: .seconds(10))
        let hello = ATLPFrame(verb: "HELLO", body: testHello.body).encoded
        // One byte every 50 ms: each resets the idle timer, none finishes the HELLO in time.
        var answer: ATLPFrame?
        for byte in hello {
            guard (try? c.sendBytes([byte])) != nil else { break }
            try c.setReceiveTimeout(.milliseconds(50))
            if let frame = try? c.receive() {
                answer = frame
                break
            }
        }
        let err = try #require(answer)
        #expect(err.verb == "ERR")
        #expect(err["code"] == "hello-required")
        #expect(err["message"]?.stringValue?.contains("no HELLO within") == true)
        #expect(eventually { server.statistics.helloTimedOut == 1 })
    }

    @Test func aFrameSentSlowerThanTheMinimumRateClosesTheConnection() throws {
        let (server, address) = try startServer(
            TestHandler(),
            configuration: configuration {
                $0.frameGracePeriod = .milliseconds(200)
                $0.minimumFrameRate = 1000
            })
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        try c.sendBytes(Array("900 EVENTS {".utf8))
        try c.setReceiveTimeout(.milliseconds(100))
        var closed = false
        for _ in 0..<200 {  // one byte per 100 ms: 10 bytes/s, far below 1,000
            do {
                try c.sendBytes([0x20])
                _ = try c.receive()
            } catch {
                if error.code == .timedOut { continue }
                closed = true  // closed by the server (EOF, or a reset on the next send)
                break
            }
        }
        #expect(closed)
        #expect(server.statistics.slowFramesClosed == 1)
    }

    @Test func oneAddressGetsNoMoreThanItsConnectionLimit() throws {
        let (server, address) = try startServer(TestHandler(), configuration: configuration { $0.maxConnectionsPerAddress = 3 })
        defer { server.stop() }
        var open = try (0..<3).map { _ in try ATLPConnection(to: address, hello: testHello) }
        let fourth = try ATLPConnection(to: address)
        let err = try fourth.receive()
        #expect(err["code"] == "too-many-connections")
        #expect(err["message"]?.stringValue?.contains("from 127.0.0.1") == true)
        for c in open { try c.ping() }  // the others are unaffected
        open.removeLast().close()
        #expect(eventually { (try? ATLPConnection(to: address, hello: testHello)) != nil })
    }

    @Test func connectionsWithoutHelloFillingEverySlotLeaveRoomForAClientThatSaysHello() throws {
        // From many addresses, none over its own limit: only the slots count.
        let (server, address) = try startServer(TestHandler(), configuration: configuration { $0.maxConnections = 8 })
        defer { server.stop() }
        var silent: [ATLPConnection] = []
        for _ in 0..<8 {
            silent.append(try ATLPConnection(to: address, timeout: .seconds(10)))
            Thread.sleep(forTimeInterval: 0.02)  // accepted in this order
        }
        let client = try ATLPConnection(to: address, hello: testHello, timeout: .seconds(10))
        try client.ping()
        // The ones waiting longest for their HELLO were closed to make room, and told why.
        let err = try silent[0].receive()
        #expect(err["code"] == "too-many-connections")
        #expect(err["message"]?.stringValue?.contains("waiting for HELLO") == true)
        #expect(server.statistics.closedBeforeHello == 5)  // 8 + 1 arrived, 4 (half the slots) may wait
        try silent[7].send(ATLPFrame(verb: "HELLO", body: testHello.body))
        #expect(try silent[7].receive().verb == "WELCOME")  // the newest still may
    }

    @Test func outOfFileDescriptorsANewClientGetsTheErrInsteadOfHanging() throws {
        let (server, address) = try startServer(TestHandler(), configuration: configuration { _ in })
        defer { server.stop() }
        FaultInjection.injectAcceptErrors(listener: server.listenerDescriptor, [EMFILE])
        let c = try ATLPConnection(to: address, timeout: .seconds(10))
        let err = try c.receive()
        #expect(err["code"] == "too-many-connections")
        #expect(err["message"]?.stringValue?.contains("out of file descriptors") == true)
        #expect(eventually { server.statistics.refused == 1 })  // counted just after the ERR is sent
        let next = try ATLPConnection(to: address, hello: testHello)  // served again
        try next.ping()
    }

    @Test func repeatedUnauthorizedFromOneAddressIsSlowedDown() throws {
        let handler = TestHandler(token: "secret")
        let (server, address) = try startServer(handler, configuration: configuration { $0.unauthorizedDelay = .seconds(5) })
        defer { server.stop() }
        let wrong = Hello(appKey: "shop", token: "guess")
        let first = try ATLPConnection(to: address)
        try first.send(ATLPFrame(verb: "HELLO", body: wrong.body))
        #expect(try first.receive()["code"] == "unauthorized")  // the first failure is answered at once

        let second = try ATLPConnection(to: address)
        try second.send(ATLPFrame(verb: "HELLO", body: wrong.body))
        try second.setReceiveTimeout(.milliseconds(500))
        #expect(throws: TransportError.self) { try second.receive() }  // held back for 5 s
        #expect(eventually { server.statistics.throttledHellos == 1 })
        try second.setReceiveTimeout(.seconds(20))
        #expect(try second.receive()["code"] == "unauthorized")  // answered once the wait is over
    }

    @Test(.timeLimit(.minutes(3)))
    func guessingTheAdminTokenWithPublishOnAnOpenServerIsSlowedDownToo() throws {
        // No ingest token: every HELLO is welcome, and a wrong admin token shows only as PUBLISH's `forbidden`.
        let (server, address) = try startServer(TestHandler(), configuration: configuration { $0.unauthorizedDelay = .seconds(1) })
        defer { server.stop() }
        func guess(_ token: String) throws -> ATLPConnection {
            let c = try ATLPConnection(to: address, timeout: .seconds(20))
            try c.send(ATLPFrame(verb: "HELLO", body: Hello(appKey: "shop", token: token).body))
            return c
        }
        let publish = ATLPFrame(verb: "PUBLISH", body: obj(["rules": []]))
        let first = try guess("guess-1")
        #expect(try first.receive().verb == "WELCOME")  // the first guess is answered at once
        try first.send(publish)
        #expect(try first.receive()["code"] == "forbidden")

        let second = try guess("guess-2")
        try second.setReceiveTimeout(.milliseconds(500))
        #expect(throws: TransportError.self) { try second.receive() }  // held back for 1 s
        try second.setReceiveTimeout(.seconds(20))
        #expect(try second.receive().verb == "WELCOME")
        try second.send(publish)
        #expect(try second.receive()["code"] == "forbidden")

        // Its welcome did not wipe the failures: the wait doubles (2 s), as for a wrong token on HELLO.
        let third = try guess("guess-3")
        try third.setReceiveTimeout(.milliseconds(1500))
        #expect(throws: TransportError.self) { try third.receive() }
        try third.setReceiveTimeout(.seconds(20))
        #expect(try third.receive().verb == "WELCOME")
        #expect(server.statistics.throttledHellos == 2)
    }
}
