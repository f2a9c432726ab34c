import ConnectionLoop
import SystemCalls
import Testing

/// The shared connection loop with a tiny echo protocol over loopback: what it does for every
/// protocol (answers in order, half-close, the output cap, idle time, connection limits).
@Suite(.timeLimit(.minutes(3))) struct ConnectionLoopTests {
    @Test func answersEachLineInOrder() throws {
        let server = try EchoServer(.echo())
        defer { server.stop() }
        let client = try LineClient(server.address)
        try client.send("one\ntwo\nthree\n")
        #expect(String(decoding: try client.read(count: 14), as: UTF8.self) == "one\ntwo\nthree\n")
        #expect(server.statistics.answered == 3)
    }

    @Test func halfCloseAnswersEveryLineReadBeforeItThenCloses() throws {
        // More lines than `maxPendingRequests`: the rest wait in the protocol's buffer after the
        // end of the stream, and are answered all the same before our side closes.
        let server = try EchoServer(.echo(maxPendingRequests: 2))
        defer { server.stop() }
        let client = try LineClient(server.address)
        let lines = (0..<50).map { "line \($0)\n" }.joined()
        try client.send(lines)
        Posix.shutdownWrite(client.fd)
        let (bytes, ended) = try client.readToEnd()
        #expect(String(decoding: bytes, as: UTF8.self) == lines)
        #expect(ended)
        #expect(eventually { server.statistics.closed == 1 })
    }

    @Test func aClosingAnswerEndsTheConnectionAfterTheAnswersBeforeIt() throws {
        let server = try EchoServer(.echo())
        defer { server.stop() }
        let client = try LineClient(server.address)
        try client.send("a\nquit\nnever\n")
        let (bytes, ended) = try client.readToEnd()
        #expect(String(decoding: bytes, as: UTF8.self) == "a\nbye\n")
        #expect(ended)
    }

    @Test func unsentOutputOverTheCapStopsReadingUntilTheClientReads() throws {
        let cap = 64 << 10
        let server = try EchoServer(.echo(maxOutputBytes: cap))
        defer { server.stop() }
        // A small receive buffer, so the answer stays in the server's output, not in the kernel.
        let client = try LineClient(server.address, receiveBuffer: 16 << 10)
        let big = 8 << 20
        try client.send("big:\(big)\n")
        #expect(eventually { server.statistics.answered == 1 })
        let before = server.statistics.bytesReceived
        try client.send(String(repeating: "x\n", count: 500))
        Posix.sleep(.milliseconds(300))
        // Nothing more was read while the unsent answer is over the cap.
        #expect(server.statistics.bytesReceived == before)
        #expect(server.statistics.answered == 1)
        // Reading the answer lets the server read and answer the rest.
        let all = try client.read(count: big + 1 + 1000)
        #expect(all.count == big + 1 + 1000)
        #expect(all.prefix(big).allSatisfy { $0 == UInt8(ascii: "b") })
        #expect(Array(all.dropFirst(big)) == Array(("\n" + String(repeating: "x\n", count: 500)).utf8))
        #expect(server.statistics.answered == 501)
        // One answer at most is queued past the cap.
        #expect(server.statistics.peakUnsent <= cap + big + 1)
    }

    @Test func aQuietConnectionIsClosedAfterTheIdleTimeoutAndABusyOneIsNot() throws {
        let server = try EchoServer(.echo(idleTimeout: .milliseconds(300)))
        defer { server.stop() }
        let quiet = try LineClient(server.address)
        let busy = try LineClient(server.address)
        let started = ContinuousClock.now
        for i in 0..<8 {
            try busy.send("ping \(i)\n")
            #expect(try busy.read(count: 7).count == 7)
            Posix.sleep(.milliseconds(100))
        }
        #expect(try quiet.readToEnd() == ([], true))
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(server.statistics.idleClosed == 1)
        try busy.send("still here\n")
        #expect(String(decoding: try busy.read(count: 11), as: UTF8.self) == "still here\n")
    }

    @Test func aConnectionOverTheLimitIsToldWhyAndClosed() throws {
        let server = try EchoServer(.echo(maxConnections: 1))
        defer { server.stop() }
        let first = try LineClient(server.address)
        try first.send("hello\n")
        #expect(try first.read(count: 6).count == 6)
        let second = try LineClient(server.address)
        let (bytes, ended) = try second.readToEnd()
        #expect(String(decoding: bytes, as: UTF8.self) == "busy\n")
        #expect(ended)
        #expect(server.statistics.refused == 1)
        #expect(server.statistics.opened == 1)
        // The first is still served.
        try first.send("again\n")
        #expect(String(decoding: try first.read(count: 6), as: UTF8.self) == "again\n")
    }

    @Test func stoppingAnswersWhatWasReadThenClosesEveryConnection() throws {
        let server = try EchoServer(.echo())
        let client = try LineClient(server.address)
        try client.send("last\n")
        #expect(eventually { server.statistics.answered == 1 })
        server.stop()
        let (bytes, ended) = try client.readToEnd()
        #expect(String(decoding: bytes, as: UTF8.self) == "last\n")
        #expect(ended)
    }
}
