import ATLPWire
import EventModel
import Foundation
import SystemCalls
import Testing

@testable import ATLPClient
@testable import ATLPServer

/// A client that sends its requests and half-closes at once gets every complete request it sent
/// answered before the close (docs/wire.md §2, item 17): the end of its stream only stops reading.
@Suite(.timeLimit(.minutes(3))) struct ATLPServerHalfCloseTests {
    /// Reads frames until the server closes (or `limit` frames, or an error).
    func framesUntilClose(_ c: ATLPConnection, limit: Int) -> [ATLPFrame] {
        var frames: [ATLPFrame] = []
        while frames.count < limit, let frame = try? c.receive() { frames.append(frame) }
        return frames
    }

    @Test func aHelloAndAHundredPingsThenEndOfStreamGetEveryAnswer() throws {
        let (server, address) = try startServer(TestHandler())
        defer { server.stop() }
        let c = try ATLPConnection(to: address, timeout: .seconds(10))
        var bytes = ATLPFrame(verb: "HELLO", body: testHello.body).encoded
        for _ in 0..<100 { bytes += ATLPFrame(verb: "PING").encoded }
        try c.sendBytes(bytes)
        c.finishSending()
        let frames = framesUntilClose(c, limit: 200)
        #expect(frames.count == 101)
        #expect(frames.first?.verb == "WELCOME")
        #expect(frames.dropFirst().allSatisfy { $0.verb == "PONG" })
    }

    @Test func aLargeBatchThenEndOfStreamIsStoredAndAcknowledged() throws {
        let handler = TestHandler()
        let (server, address) = try startServer(handler, maxFrame: 1 << 20)
        defer { server.stop() }
        let c = try ATLPConnection(to: address, timeout: .seconds(10))
        let events = (0..<7500).map { event("e\($0)").json }
        var body = JSONObject()
        body["batch"] = .int(1)
        body["events"] = .array(events)
        let frame = ATLPFrame(verb: "EVENTS", body: body).encoded
        #expect(frame.count > 500_000)
        try c.sendBytes(ATLPFrame(verb: "HELLO", body: testHello.body).encoded + frame)
        c.finishSending()
        let frames = framesUntilClose(c, limit: 10)
        #expect(frames.map(\.verb) == ["WELCOME", "ACK"])
        #expect(frames.last?["stored"] == 7500)
        #expect(handler.stored == 7500)
    }

    @Test func aRequestAfterAClosingErrorIsStillNotAnsweredAtEndOfStream() throws {
        let (server, address) = try startServer(TestHandler())
        defer { server.stop() }
        let c = try ATLPConnection(to: address, timeout: .seconds(10))
        // A PING before HELLO is a closing error: the HELLO after it must not be answered.
        try c.sendBytes(ATLPFrame(verb: "PING").encoded + ATLPFrame(verb: "HELLO", body: testHello.body).encoded)
        c.finishSending()
        let frames = framesUntilClose(c, limit: 10)
        #expect(frames.map(\.verb) == ["ERR"])
        #expect(frames.first?["code"] == "hello-required")
    }
}
