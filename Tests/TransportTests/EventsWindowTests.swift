import ATLPWire
import EventModel
import Synchronization
import SystemCalls
import Testing

@testable import ATLPClient

/// `ATLPConnection.sendEvents(window:next:acknowledged:)`: a window of EVENTS in flight, the
/// ACKs read in order and checked against their batches.
@Suite(.timeLimit(.minutes(5)))
struct EventsWindowTests {
    /// Batch n of `count`, two events each (ids "bn-0", "bn-1"), or nil past the last.
    func batch(_ n: Int, of count: Int) -> EventsRequest? {
        guard n < count else { return nil }
        return EventsRequest(batch: .string("b\(n)"), events: (0..<2).map { .object(JSONObject([("id", .string("b\(n)-\($0)"))])) })
    }

    @Test func aShipperKeepsTheDefaultWindowInFlightUnlessTold() {
        let configuration = EventShipperConfiguration(address: SocketAddress(host: "127.0.0.1", port: 1), hello: testHello, spoolDirectory: "/nonexistent")
        #expect(configuration.window == EventShipperConfiguration.defaultWindow)
        #expect(EventShipperConfiguration.defaultWindow > 1)
    }

    @Test func keepsTheWindowInFlightAndReadsTheACKsInOrder() throws {
        // The collector answers only once 3 batches are unanswered: a client that waits for each
        // ACK before its next batch would wait for ever.
        let fake = try FakeCollector(connections: 1, holdEvents: 3)
        defer { fake.stop() }
        let connection = try ATLPConnection(to: fake.address, hello: testHello, timeout: .seconds(5))
        defer { connection.close() }
        var acks: [(Int, BatchAck)] = []
        try connection.sendEvents(window: 3, next: { batch($0, of: 6) }, acknowledged: { acks.append(($0, $1)) })
        #expect(acks.map(\.0) == Array(0..<6))
        #expect(acks.map(\.1.batch) == (0..<6).map { .string("b\($0)") })
        #expect(acks.allSatisfy { $0.1.stored == 2 && $0.1.duplicates == 0 })
        #expect(fake.acknowledged.withLock { $0 } == (0..<6).flatMap { n in ["b\(n)-0", "b\(n)-1"] })
    }

    @Test func aWindowSmallerThanTheCollectorHoldsWaitsInVain() throws {
        // The same collector with 2 in flight: no answer comes, and the receive times out (the
        // check that the test above needs its window).
        let fake = try FakeCollector(connections: 1, holdEvents: 3)
        defer { fake.stop() }
        let connection = try ATLPConnection(to: fake.address, hello: testHello, timeout: .milliseconds(500))
        defer { connection.close() }
        var acks = 0
        do {
            try connection.sendEvents(window: 2, next: { batch($0, of: 6) }, acknowledged: { _, _ in acks += 1 })
            Issue.record("answers came with 2 batches in flight")
        } catch {
            #expect(error.code == .timedOut)
        }
        #expect(acks == 0)
    }

    @Test func anACKOfAnotherBatchIsAProtocolViolation() throws {
        let fake = try FakeCollector(connections: 1, holdEvents: 2, answersReversed: true)
        defer { fake.stop() }
        let connection = try ATLPConnection(to: fake.address, hello: testHello, timeout: .seconds(5))
        defer { connection.close() }
        do {
            try connection.sendEvents(window: 2, next: { batch($0, of: 2) }, acknowledged: { _, _ in })
            Issue.record("answers out of order were taken")
        } catch {
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("expected the ACK of batch \"b0\""))
        }
    }

    @Test func anERRAnswerThrowsRemoteAndNothingAfterItIsSent() throws {
        let fake = try FakeCollector(connections: 1, poison: "b1-0")
        defer { fake.stop() }
        let connection = try ATLPConnection(to: fake.address, hello: testHello, timeout: .seconds(5))
        defer { connection.close() }
        var acknowledged: [Int] = []
        do {
            try connection.sendEvents(window: 1, next: { batch($0, of: 4) }, acknowledged: { n, _ in acknowledged.append(n) })
            Issue.record("an ERR answer was taken")
        } catch {
            #expect(error.code == .remote)
        }
        #expect(acknowledged == [0])
        #expect(fake.acknowledged.withLock { $0 } == ["b0-0", "b0-1"])
    }
}
