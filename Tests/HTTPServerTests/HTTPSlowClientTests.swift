import Foundation
import HTTPServer
import SystemCalls
import Testing

/// Clients that are slow, silent, greedy or many: each costs only its own bounded share, meets
/// a deadline, and never keeps a well-behaved client from being served.
@Suite(.timeLimit(.minutes(3))) struct HTTPSlowClientTests {
    @Test func manyTricklingClientsDoNotKeepAFastOneFromBeingServedAndAreTimedOut() throws {
        let (server, address) = try startServer {
            $0.maxConnections = 20
            $0.headerTimeout = .milliseconds(1500)
        }
        defer { server.stop() }
        // 40 slowloris connections, more than the server holds, each a byte at a time.
        let request = Array(get("/echo").utf8)
        var tricklers: [RawHTTPClient] = []
        for _ in 0..<40 {
            let t = try RawHTTPClient(address)
            try t.send(Array(request[0..<3]))
            tricklers.append(t)
        }
        #expect(eventually { server.statistics.accepted == 40 })
        for step in 3..<8 {
            for t in tricklers { try? t.send([request[step]]) }
            // A fast client arriving now is served at once, every time.
            let fast = try RawHTTPClient(address, timeout: .seconds(2))
            let started = ContinuousClock.now
            #expect(try fast.exchange(get("/echo")).status == 200)
            #expect(ContinuousClock.now - started < .seconds(1))
            fast.close()
            Thread.sleep(forTimeInterval: 0.1)
        }
        // Every trickler is closed: those evicted early (silently, or with a 408 when part of
        // their request had been read), the rest with a 408 at the head deadline.
        var timedOut = 0
        var closed = 0
        for t in tricklers {
            try t.setReceiveTimeout(.seconds(3))
            if let r = try? t.response() {
                #expect(r.status == 408)
                timedOut += 1
            } else if t.isClosedByServer() {
                closed += 1
            }
        }
        #expect(timedOut + closed == 40)
        #expect(timedOut >= 10)  // at least the 10 that held the slots for slow heads
        let stats = server.statistics
        #expect(stats.evicted >= 20)  // room made for the late arrivals
        #expect(stats.responses[200] == 5)
        #expect(stats.open <= 20)
    }

    @Test func aConnectionThatSaysNothingIsClosedAtTheHeadDeadline() throws {
        let (server, address) = try startServer { $0.headerTimeout = .milliseconds(300) }
        defer { server.stop() }
        let silent = try RawHTTPClient(address)
        #expect(silent.isClosedByServer())
        #expect(server.statistics.headerTimeouts == 1)
    }

    @Test func aKeptAliveConnectionIsClosedAfterTheIdleTimeout() throws {
        let (server, address) = try startServer { $0.idleTimeout = .milliseconds(300) }
        defer { server.stop() }
        let c = try RawHTTPClient(address)
        #expect(try c.exchange(get("/echo")).status == 200)
        let started = ContinuousClock.now
        #expect(c.isClosedByServer())
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(server.statistics.idleClosed == 1)
    }

    @Test func aBodySentTooSlowlyGets408() throws {
        let (server, address) = try startServer {
            $0.bodyGracePeriod = .milliseconds(300)
            $0.minimumBodyRate = 1000
        }
        defer { server.stop() }
        let c = try RawHTTPClient(address)
        try c.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10000\r\n\r\n")
        try c.setReceiveTimeout(.milliseconds(100))
        var answer: RawResponse?
        for _ in 0..<100 {  // 10 bytes per 100 ms: 100 bytes/s, a tenth of the minimum
            guard (try? c.send(String(repeating: "z", count: 10))) != nil else { break }
            if let r = try? c.response() {
                answer = r
                break
            }
        }
        let r = try #require(answer)
        #expect(r.status == 408)
        #expect(server.statistics.slowBodies == 1)
    }

    @Test func aClientThatDoesNotReadIsNoLongerServedAndItsOutputStaysBounded() throws {
        let (server, address) = try startServer {
            $0.maxOutputBytes = 256 << 10
            $0.sendTimeout = .milliseconds(800)
        }
        defer { server.stop() }
        let greedy = try RawHTTPClient(address)
        var burst = ""
        for _ in 0..<400 { burst += get("/big?n=1000000") }  // 400 MB of answers asked for
        try greedy.send(burst)
        // Others are served meanwhile.
        for _ in 0..<5 {
            #expect(try RawHTTPClient(address).exchange(get("/echo")).status == 200)
        }
        #expect(eventually { server.statistics.sendTimeouts == 1 })
        let stats = server.statistics
        // Answering paused once the unsent bytes passed the cap: at most the cap plus one answer
        // are held (the kernel's socket buffers take a few more), nowhere near 400 MB.
        #expect(stats.peakOutputBytes <= (256 << 10) + 1_000_300)
        #expect(stats.requests < 40)
    }

    @Test func aFullServerRefusesWith503WhenEveryConnectionIsBusy() throws {
        let (server, address) = try startServer {
            $0.maxConnections = 2
            $0.workerThreads = 2
        }
        defer { server.stop() }
        let a = try RawHTTPClient(address)
        try a.send(get("/slow?ms=1500"))
        #expect(eventually { server.statistics.requests == 1 })
        let b = try RawHTTPClient(address)
        try b.send(get("/slow?ms=1500"))
        #expect(eventually { server.statistics.requests == 2 })
        let c = try RawHTTPClient(address)
        let r = try c.exchange(get("/echo"))
        #expect(r.status == 503)
        #expect(r.headers["Retry-After"] == "1")
        #expect(c.isClosedByServer())
        #expect(try a.response().text == "slept")
        #expect(try b.response().text == "slept")
        #expect(server.statistics.refused == 1)
    }

    @Test func aFullServerEvictsAnIdleKeptAliveConnectionForANewClient() throws {
        let (server, address) = try startServer { $0.maxConnections = 2 }
        defer { server.stop() }
        let a = try RawHTTPClient(address)
        #expect(try a.exchange(get("/echo/a")).status == 200)
        Thread.sleep(forTimeInterval: 0.05)
        let b = try RawHTTPClient(address)
        #expect(try b.exchange(get("/echo/b")).status == 200)
        let c = try RawHTTPClient(address)
        #expect(try c.exchange(get("/echo/c")).status == 200)
        #expect(a.isClosedByServer())  // the one idle longest
        #expect(try b.exchange(get("/echo/b2")).status == 200)
        #expect(server.statistics.evicted == 1)
    }

    @Test func connectionsWaitingForAFirstRequestHoldAtMostHalfTheSlots() throws {
        let (server, address) = try startServer {
            $0.maxConnections = 10
            $0.headerTimeout = .seconds(20)
        }
        defer { server.stop() }
        // Three clients served and kept alive, then a flood of connections that never finish a head.
        let served = try (0..<3).map { i in
            let c = try RawHTTPClient(address)
            #expect(try c.exchange(get("/echo/\(i)")).status == 200)
            return c
        }
        var flood: [RawHTTPClient] = []
        for _ in 0..<30 {
            let t = try RawHTTPClient(address)
            try t.send("GET /slow")
            flood.append(t)
        }
        #expect(eventually { server.statistics.accepted == 33 })
        // The flood evicted only its own kind: the served connections are still open and answered.
        for (i, c) in served.enumerated() {
            #expect(try c.exchange(get("/echo/again\(i)")).text == "GET /echo/again\(i) - 0")
        }
        let stats = server.statistics
        #expect(stats.evicted == 25)  // 30 heads, 5 slots for them (half of 10)
        #expect(stats.open == 8)
    }

    @Test func tooManyConnectionsFromOneAddressGet503() throws {
        let (server, address) = try startServer { $0.maxConnectionsPerAddress = 3 }
        defer { server.stop() }
        let open = try (0..<3).map { _ in try RawHTTPClient(address) }
        #expect(eventually { server.statistics.accepted == 3 })
        let extra = try RawHTTPClient(address)
        let r = try extra.exchange(get("/echo"))
        #expect(r.status == 503)
        #expect(r.text.contains("your address"))
        for c in open { #expect(try c.exchange(get("/echo")).status == 200) }
    }
}
