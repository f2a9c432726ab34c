import ATLPWire
import EventModel
import Foundation
import Synchronization
import SystemCalls
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// A `SNAPSHOT` may exceed `maxFrame` up to `maxSnapshotFrame`, after `HELLO` only; every other
/// verb above `maxFrame` is still `frame-too-large` (docs/wire.md §1, choice 18).
@Suite(.timeLimit(.minutes(3))) struct LargeSnapshotFrameTests {
    /// A valid SNAPSHOT whose PNG has `bytes` bytes (so its frame is about 4/3 of that).
    static func upload(pngBytes bytes: Int, page: String = "Home") -> SnapshotUpload {
        let png = SnapshotUpload.pngSignature + (0..<max(0, bytes - 8)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        return SnapshotUpload(
            page: page, capturedAt: 1_700_000_000_000, width: 640, height: 480, png: png,
            tree: JSONObject([("type", "Window"), ("path", .string(page))]))
    }

    static func server(_ handler: TestHandler = TestHandler(), maxSnapshotFrame: Int = 256 << 10, budget: Int = 64 << 20) throws
        -> (ATLPService, SocketAddress)
    {
        try startServer(
            handler,
            configuration: ATLPServerConfiguration(
                host: "127.0.0.1", port: 0, maxFrame: 4096, maxSnapshotFrame: maxSnapshotFrame, snapshotMemoryBudget: budget,
                stopGracePeriod: .seconds(2)))
    }

    // MARK: the decoder alone

    @Test func theDecoderHoldsALargeSnapshotUntilAdmittedThenReturnsItWhole() throws {
        let hello = ATLPFrame(verb: "HELLO", body: testHello.body).encoded
        let snapshot = Self.upload(pngBytes: 3000).frame
        var d = FrameDecoder(maxFrame: 1024, maxSnapshotFrame: 8192)
        d.append(hello + snapshot.encoded)
        #expect(try d.next() != nil)  // the HELLO
        #expect(try d.next() == nil)
        #expect(d.waitingLargeFrame == snapshot.payload.count)
        #expect(d.frameLimit == 1024)
        d.admitLargeFrame()
        #expect(d.waitingLargeFrame == nil)
        #expect(d.frameLimit == snapshot.payload.count)
        #expect(try d.next() == snapshot.payload)
        #expect(d.frameLimit == 1024)  // the admission was for that frame only
    }

    @Test func theDecoderRefusesALargeFrameFirstOrOfAnotherVerbOrAboveTheSnapshotMaximum() throws {
        let hello = ATLPFrame(verb: "HELLO", body: testHello.body).encoded
        // First frame: no HELLO can have come before it.
        var first = FrameDecoder(maxFrame: 1024, maxSnapshotFrame: 8192)
        first.append(Self.upload(pngBytes: 3000).frame.encoded)
        let e1 = #expect(throws: ATLPError.self) { try first.next() }
        #expect(e1?.code == .frameTooLarge)
        #expect(e1?.message.contains("only a SNAPSHOT after HELLO") == true)
        // Another verb: refused once its first 9 bytes show it.
        var events = FrameDecoder(maxFrame: 1024, maxSnapshotFrame: 8192)
        events.append(hello + Array("2000 EVENTS {\"b".utf8))
        #expect(try events.next() != nil)
        let e2 = #expect(throws: ATLPError.self) { try events.next() }
        #expect(e2?.code == .frameTooLarge)
        #expect(e2?.message.contains("only SNAPSHOT may be larger") == true)
        // Above the snapshot maximum: refused on its length alone.
        var huge = FrameDecoder(maxFrame: 1024, maxSnapshotFrame: 8192)
        huge.append(hello + Array("8193 ".utf8))
        #expect(try huge.next() != nil)
        #expect(throws: ATLPError.self) { try huge.next() }
        // Without a snapshot maximum the decoder is the plain one.
        var plain = FrameDecoder(maxFrame: 1024)
        plain.append(hello + Array("2000 SNAPSHOT ".utf8))
        #expect(try plain.next() != nil)
        #expect(throws: ATLPError.self) { try plain.next() }
    }

    // MARK: through the server

    @Test func aLargeSnapshotAfterHelloIsStoredAndOthersStillAnswer() throws {
        let handler = TestHandler()
        let (server, address) = try Self.server(handler)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        #expect(c.welcome?.maxSnapshot == 256 << 10)
        let upload = Self.upload(pngBytes: 150_000)
        #expect(upload.frame.payload.count > 4096 * 40)
        #expect(try c.sendSnapshot(upload) == 1)
        try c.ping()
        #expect(try c.sendSnapshot(Self.upload(pngBytes: 100, page: "Small")) == 2)
        #expect(server.statistics.largeFramesAdmitted == 1)  // the small one is an ordinary frame
        #expect(handler.state.withLock { $0.snapshots } == [upload, Self.upload(pngBytes: 100, page: "Small")])
    }

    @Test func aLargeSnapshotPipelinedRightBehindHelloWaitsForTheWelcome() throws {
        let handler = TestHandler()
        let (server, address) = try Self.server(handler)
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        let upload = Self.upload(pngBytes: 100_000)
        try c.sendBytes(ATLPFrame(verb: "HELLO", body: testHello.body).encoded + upload.frame.encoded)
        #expect(try c.receive().verb == "WELCOME")
        #expect(SnapshotAck(try c.receive()) == SnapshotAck(snapshot: 1))
        #expect(handler.state.withLock { $0.snapshots } == [upload])
    }

    @Test func aLargeSnapshotBeforeHelloIsTooLarge() throws {
        let (server, address) = try Self.server()
        defer { server.stop() }
        let c = try ATLPConnection(to: address)
        try c.sendBytes(Self.upload(pngBytes: 10_000).frame.encoded)
        expectError(c, .frameTooLarge)
        // A HELLO refused as a bad request does not open the door either (and nothing stalls).
        let d = try ATLPConnection(to: address)
        try d.sendBytes(wire("HELLO {\"protocol\":1}") + Self.upload(pngBytes: 10_000).frame.encoded)
        #expect(try d.receive()["code"] == "bad-request")
        expectError(d, .frameTooLarge)
    }

    @Test func otherVerbsAboveMaxFrameAndSnapshotsAboveTheirMaximumAreTooLarge() throws {
        let (server, address) = try Self.server()
        defer { server.stop() }
        let c = try ATLPConnection(to: address, hello: testHello)
        let events = (0..<200).map { event("e\($0)").json }
        try c.send(ATLPFrame(verb: "EVENTS", body: JSONObject([("batch", "big"), ("events", .array(events))])))
        expectError(c, .frameTooLarge)
        let d = try ATLPConnection(to: address, hello: testHello)
        try d.sendBytes(Array("\((256 << 10) + 1) SNAPSHOT ".utf8))
        expectError(d, .frameTooLarge)
        #expect(server.statistics.errors[.frameTooLarge] == 2)
    }

    /// A budget below two frames: the connections take turns, none is refused or stalls.
    @Test func theMemoryBudgetMakesLargeFramesTakeTurns() throws {
        let handler = TestHandler()
        let (server, address) = try Self.server(handler, budget: 150_000)
        defer { server.stop() }
        let failures = Mutex<[String]>([])
        let threads = (0..<4).map { i in
            Thread {
                do {
                    let c = try ATLPConnection(to: address, hello: testHello)
                    for j in 0..<3 { _ = try c.sendSnapshot(Self.upload(pngBytes: 100_000, page: "P\(i)-\(j)")) }
                    c.close()
                } catch {
                    failures.withLock { $0.append("\(i): \(error)") }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(eventually(attempts: 6000) { handler.state.withLock { $0.snapshots.count } == 12 })
        #expect(failures.withLock { $0 } == [])
        let statistics = server.statistics
        #expect(statistics.largeFramesAdmitted == 12)
        #expect(statistics.peakLargeFrameBytes <= 150_000)  // never two frames at once
    }

    /// A large frame holds its room from its first bytes: a second one waits, unread, until the
    /// first is answered, then goes through.
    @Test func aLargeFrameWaitsWhileAnotherHoldsTheBudget() throws {
        let handler = TestHandler()
        let (server, address) = try Self.server(handler, budget: 150_000)
        defer { server.stop() }
        let a = try ATLPConnection(to: address, hello: testHello)
        let first = Self.upload(pngBytes: 100_000, page: "A").frame.encoded
        try a.sendBytes(Array(first[0..<64]))  // the length and the verb: admitted, the rest to come
        #expect(eventually { server.statistics.largeFramesAdmitted == 1 })
        let second = Self.upload(pngBytes: 100_000, page: "B")
        let answered = Mutex<Int64?>(nil)
        let sender = Thread {
            let id = try? ATLPConnection(to: address, hello: testHello).sendSnapshot(second)
            answered.withLock { $0 = id }
        }
        sender.start()
        #expect(eventually { server.statistics.largeFrameWaits == 1 })
        #expect(answered.withLock { $0 } == nil)
        try a.sendBytes(Array(first[64...]))
        #expect(SnapshotAck(try a.receive()) == SnapshotAck(snapshot: 1))
        #expect(eventually { answered.withLock { $0 } == 2 })
        #expect(handler.state.withLock { $0.snapshots.map(\.page) } == ["A", "B"])
        #expect(server.statistics.peakLargeFrameBytes <= 150_000)
    }
}
